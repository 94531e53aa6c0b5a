package cfi

import (
	"encoding/binary"
	"os/exec"
	"testing"
)

// fuzzSeeds returns real .eh_frame/.eh_frame_hdr pairs: a small program
// built now, a prefix of libc's (the whole section is large for a fuzzer),
// and the hand-written big-endian table.
type seed struct {
	eh, hdr         []byte
	ehAddr, hdrAddr uint64
	big             bool
}

func fuzzSeeds(f *testing.F) []seed {
	var seeds []seed
	if path := tryBuild(f); path != "" {
		secs, _, _ := readSections(f, path)
		seeds = append(seeds, seed{secs[".eh_frame"].data, secs[".eh_frame_hdr"].data, secs[".eh_frame"].addr, secs[".eh_frame_hdr"].addr, false})
	}
	secs, _, _ := readSections(f, "/usr/lib/x86_64-linux-gnu/libc.so.6")
	eh, hdr := secs[".eh_frame"], secs[".eh_frame_hdr"]
	if len(eh.data) > 2048 && len(hdr.data) > 512 {
		seeds = append(seeds, seed{eh.data[:2048], hdr.data[:512], eh.addr, hdr.addr, false})
	}
	be, beHdr := buildHPPALike(binary.BigEndian, 0x10000, 0xf000)
	seeds = append(seeds, seed{be, beHdr, 0x10000, 0xf000, true})
	return seeds
}

// tryBuild builds the C test program when gcc is there (fuzz seeds are a
// bonus, so a missing compiler is not an error here).
func tryBuild(f *testing.F) string {
	if _, err := exec.LookPath("gcc"); err != nil {
		return ""
	}
	return buildProgram(f, "gcc", ".c", cProgram, "-O2")
}

func orderOf(big bool) binary.ByteOrder {
	if big {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// exercise runs everything a caller can do with a table; it must not
// panic, hang or allocate without bound, and lookups must be consistent.
func exercise(t *testing.T, tab *Table, pc uint64) {
	fdes, _ := tab.FDEs()
	_, _ = tab.CIEs()
	for i, f := range fdes {
		if i >= 64 {
			break
		}
		if f.End < f.Begin {
			t.Fatalf("FDE %#x: End %#x < Begin %#x", f.Offset, f.End, f.Begin)
		}
		_, _ = f.Rows()
		if f.End > f.Begin {
			for _, p := range []uint64{f.Begin, f.Begin + (f.End-f.Begin)/2, f.End - 1} {
				if r, err := f.RowAt(p); err == nil && len(r.Regs) > maxRegister+1 {
					t.Fatalf("row with %d registers", len(r.Regs))
				}
			}
			if g, err := tab.FDEForPC(f.Begin); err == nil && (f.Begin < g.Begin || f.Begin >= g.End) {
				t.Fatalf("FDEForPC(%#x) returned [%#x,%#x)", f.Begin, g.Begin, g.End)
			}
		}
		_, _ = f.RowAt(pc)
	}
	if g, err := tab.FDEForPC(pc); err == nil {
		if pc < g.Begin || pc >= g.End {
			t.Fatalf("FDEForPC(%#x) returned [%#x,%#x)", pc, g.Begin, g.End)
		}
		_, _ = g.RowAt(pc)
	}
}

func FuzzEHFrame(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s.eh, s.hdr, s.ehAddr, s.hdrAddr, s.big, true, s.ehAddr+0x100)
	}
	f.Fuzz(func(t *testing.T, eh, hdr []byte, ehAddr, hdrAddr uint64, big, ptr8 bool, pc uint64) {
		ptr := 4
		if ptr8 {
			ptr = 8
		}
		tab, err := NewEHFrame(eh, ehAddr, hdr, hdrAddr, orderOf(big), ptr)
		if err != nil {
			t.Fatal(err) // only a bad order/pointer size may fail here
		}
		exercise(t, tab, pc)
		dtab, err := NewDebugFrame(eh, ehAddr, orderOf(big), ptr)
		if err != nil {
			t.Fatal(err)
		}
		exercise(t, dtab, pc)
	})
}

func FuzzEHFrameHdr(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s.hdr, s.hdrAddr, s.big, uint64(0x20010))
	}
	seeds := fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, hdr []byte, hdrAddr uint64, big bool, pc uint64) {
		// The .eh_frame stays a real one; only the header is mutated.
		for _, s := range seeds {
			if s.big != big {
				continue
			}
			tab, err := NewEHFrame(s.eh, s.ehAddr, hdr, hdrAddr, orderOf(big), 8)
			if err != nil {
				t.Fatal(err)
			}
			// The header is trusted lazily, so a mutated one must never
			// lead to an FDE other than the one the FDE index finds (the
			// seeds' FDEs do not overlap).
			ref, err := NewEHFrame(s.eh, s.ehAddr, nil, 0, orderOf(big), 8)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []uint64{pc, s.ehAddr, 0x20000} {
				g, err := tab.FDEForPC(p)
				if err != nil {
					continue
				}
				if p < g.Begin || p >= g.End {
					t.Fatalf("FDEForPC(%#x) returned [%#x,%#x)", p, g.Begin, g.End)
				}
				if w, err := ref.FDEForPC(p); err != nil || w.Offset != g.Offset {
					t.Fatalf("FDEForPC(%#x) through the header: FDE %#x; through the index: %v, %v", p, g.Offset, w, err)
				}
			}
		}
	})
}

func FuzzEval(f *testing.F) {
	f.Add([]byte{0x77, 0xa0, 0x01, 0x06}, false, uint64(0x7000))                                // breg7+160; deref (__restore_rt CFA)
	f.Add([]byte{0x77, 0x08, 0x80, 0x00, 0x1a, 0x3b, 0x2a, 0x3b, 0x1e, 0x22}, false, uint64(0)) // PLT CFA expression
	f.Add([]byte{0x31, 0x2f, 0x01, 0x00, 0x32, 0x35, 0x28, 0xf0, 0xff}, true, uint64(1))
	f.Add([]byte{0x9c, 0x23, 0x10, 0x94, 0x04, 0x12, 0x16, 0x17, 0x15, 0x01}, true, uint64(5))
	f.Fuzz(func(t *testing.T, expr []byte, ptr4 bool, init uint64) {
		ptr := 8
		if ptr4 {
			ptr = 4
		}
		ctx := &ExprContext{
			Order: binary.LittleEndian, PtrSize: ptr,
			ReadMem: func(addr uint64, size int) (uint64, error) { return addr*3 + uint64(size), nil },
			Reg:     func(r uint64) (uint64, error) { return r * 7, nil },
			CFA:     0x1000, HasCFA: true,
		}
		v, err := Eval(expr, ctx, init)
		if err == nil && ptr == 4 && v > 0xffffffff {
			t.Fatalf("32-bit result %#x", v)
		}
	})
}

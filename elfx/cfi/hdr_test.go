package cfi

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// A header that cannot be trusted must be ignored, and lookups must still
// be right (through the FDE index).
func TestEHFrameHdrFallback(t *testing.T) {
	const libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
	secs, order, ptr := readSections(t, libc)
	eh, hdr := secs[".eh_frame"], secs[".eh_frame_hdr"]
	good, err := NewEHFrame(eh.data, eh.addr, hdr.data, hdr.addr, order, ptr)
	if err != nil {
		t.Fatal(err)
	}
	if !good.HasHeaderIndex() {
		t.Fatal("libc's .eh_frame_hdr not used")
	}
	fdes, err := good.FDEs()
	if err != nil {
		t.Fatal(err)
	}
	tableAt := 12 // version, 3 encodings, eh_frame_ptr (sdata4), fde_count (udata4)
	if hdr.data[1] != 0x1b || hdr.data[2] != 0x03 || hdr.data[3] != 0x3b {
		t.Fatalf("unexpected libc header encodings % x", hdr.data[:4])
	}
	corrupt := map[string]func(b []byte) ([]byte, uint64){
		"unsorted": func(b []byte) ([]byte, uint64) {
			// Swap the first two (initial_location, fde) pairs.
			e0 := append([]byte(nil), b[tableAt:tableAt+8]...)
			copy(b[tableAt:], b[tableAt+8:tableAt+16])
			copy(b[tableAt+8:], e0)
			return b, hdr.addr
		},
		"wrong eh_frame_ptr": func(b []byte) ([]byte, uint64) { return b, hdr.addr + 16 },
		"version 2":          func(b []byte) ([]byte, uint64) { b[0] = 2; return b, hdr.addr },
		"count too large": func(b []byte) ([]byte, uint64) {
			binary.LittleEndian.PutUint32(b[8:], 0x7fffffff)
			return b, hdr.addr
		},
		"truncated":  func(b []byte) ([]byte, uint64) { return b[:7], hdr.addr },
		"uleb table": func(b []byte) ([]byte, uint64) { b[3] = 0x31; return b, hdr.addr },
		"FDE outside eh_frame": func(b []byte) ([]byte, uint64) {
			binary.LittleEndian.PutUint32(b[tableAt+4:], 0x7ffffff0)
			return b, hdr.addr
		},
	}
	for name, fn := range corrupt {
		t.Run(name, func(t *testing.T) {
			b, addr := fn(append([]byte(nil), hdr.data...))
			// The table is checked lazily, on the first lookup it
			// misses: lookups first, then the verdict; and the verdict
			// (which checks it) first, then lookups.
			for _, lookupsFirst := range []bool{true, false} {
				tab, err := NewEHFrame(eh.data, eh.addr, b, addr, order, ptr)
				if err != nil {
					t.Fatal(err)
				}
				if lookupsFirst {
					checkLookups(t, tab, fdes)
				}
				if tab.HasHeaderIndex() || tab.HeaderError() == nil {
					t.Error("corrupt header used")
				}
				t.Logf("header rejected: %v", tab.HeaderError())
				checkLookups(t, tab, fdes)
			}
		})
	}
}

// Lookups from many goroutines on fresh tables (the index and the header
// check are built on first use) must agree; run with -race.
func TestConcurrentLookups(t *testing.T) {
	secs, order, ptr := readSections(t, "/usr/lib/x86_64-linux-gnu/libc.so.6")
	eh, hdr := secs[".eh_frame"], secs[".eh_frame_hdr"]
	for _, h := range []sectionData{hdr, {}} {
		tab, _ := NewEHFrame(eh.data, eh.addr, h.data, h.addr, order, ptr)
		ref, _ := NewEHFrame(eh.data, eh.addr, h.data, h.addr, order, ptr)
		fdes, _ := ref.FDEs()
		done := make(chan error)
		for g := 0; g < 8; g++ {
			go func(g int) {
				for i := g; i < len(fdes); i += 8 {
					f, err := tab.FDEForPC(fdes[i].Begin)
					if err == nil && f.Offset != fdes[i].Offset {
						err = fmt.Errorf("FDEForPC(%#x) = FDE %#x, want %#x", fdes[i].Begin, f.Offset, fdes[i].Offset)
					}
					if err == nil {
						_, err = f.RowAt(f.End - 1)
					}
					if err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}(g)
		}
		for g := 0; g < 8; g++ {
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	}
}

// validate's inline decoding of gcc's table encoding agrees with field's
// general one: on libc's header and on copies with entries swapped or
// pointed outside the .eh_frame, both accept or reject alike, at the
// same entry.
func TestHdrValidateFastPathAgrees(t *testing.T) {
	secs, order, ptr := readSections(t, "/usr/lib/x86_64-linux-gnu/libc.so.6")
	eh, hdr := secs[".eh_frame"], secs[".eh_frame_hdr"]
	const tableAt = 12
	n := (len(hdr.data) - tableAt) / 8
	for trial := 0; trial < 64; trial++ {
		b := append([]byte(nil), hdr.data...)
		i := tableAt + (trial*7919%n)*8
		switch {
		case trial == 0: // unchanged
		case trial%2 == 1 && i+16 <= len(b): // swap entries i and i+1
			e := append([]byte(nil), b[i:i+8]...)
			copy(b[i:], b[i+8:i+16])
			copy(b[i+8:], e)
		default: // the FDE pointer of entry i moves by trial MiB
			v := binary.LittleEndian.Uint32(b[i+4:])
			binary.LittleEndian.PutUint32(b[i+4:], v+uint32(trial)<<20)
		}
		h, err := parseHdr(b, hdr.addr, order, ptr)
		if err != nil {
			t.Fatal(err)
		}
		if !h.le || h.enc != PEDataRel|PESData4 {
			t.Fatalf("libc's header is not the fast path's case: encoding %#x", h.enc)
		}
		fast := h.validate(uint64(len(eh.data)), eh.addr)
		h.le = false // field through the ByteOrder interface, validate by field
		slow := h.validate(uint64(len(eh.data)), eh.addr)
		if fmt.Sprint(fast) != fmt.Sprint(slow) {
			t.Errorf("trial %d: inline decoding says %v, field says %v", trial, fast, slow)
		}
		if trial == 0 && fast != nil {
			t.Errorf("libc's header rejected: %v", fast)
		}
		if trial == 1 && fast == nil {
			t.Error("swapped entries accepted")
		}
	}
}

package pa64

import (
	"debug/elf"
	"encoding/binary"
	"os/exec"
	"path/filepath"
	"testing"
)

// FuzzScanPrologue runs the prologue scan over arbitrary instruction
// words: it must not panic, must read only the words between the entry
// and the pc, at most once each, and must stop within its bound. The
// seeds are the functions of real hppa and hppa64 gcc output (every
// prologue shape the compilers emit for the test programs: large,
// alloca, fp-saving, millicode-calling frames).
func FuzzScanPrologue(f *testing.F) {
	for _, fn := range prologueSeeds(f) {
		f.Add(fn.code, fn.wide)
	}
	// A few shapes by hand, should the compilers be missing: stw rp /
	// ldo frame / stw r3 / copy sp,r3 / addil+ldo big frame / fstd,ma.
	f.Add(beWords(0x6bc23fd9, 0x37de0080, 0x6bc33f59, 0x081e0243, 0x2bc00000, 0x343e0100, 0x2fc11224, 0xe840c000), false)
	f.Add(beWords(0x0fc212c1, 0x73c40108, 0x37c13f01, 0x2c30121c, 0xe800d000), true)
	f.Fuzz(func(t *testing.T, code []byte, wide bool) {
		const start = 0x10000
		n := uint64(len(code) / 4)
		reads := map[uint64]bool{}
		read := func(addr uint64) (uint32, bool) {
			if addr < start || addr >= start+4*n || addr%4 != 0 {
				t.Fatalf("read %#x outside the scanned words [%#x, %#x)", addr, start, start+4*n)
			}
			if reads[addr] {
				t.Fatalf("word %#x read twice", addr)
			}
			reads[addr] = true
			return binary.BigEndian.Uint32(code[addr-start:]), true
		}
		p := scanPrologue(read, start, start+4*n, wide)
		if len(reads) > 4096 {
			t.Fatalf("%d words read, bound is 4096", len(reads))
		}
		for reg := range p.saves {
			if !calleeSaved(reg) {
				t.Fatalf("save of %s, which is not callee-saved", RegName(reg))
			}
		}
		for reg := range p.fsaves {
			if !calleeSaved(reg) {
				t.Fatalf("save of %s, which is not callee-saved", RegName(reg))
			}
		}
		// The rule built from the scan caps the frame at the table's size;
		// the scan itself sums 14- and 21-bit immediates over at most 4096
		// words, so it cannot overflow.
		const maxAbs = 4096 * (1 << 32)
		if p.size > maxAbs || p.size < -maxAbs {
			t.Fatalf("frame size %d out of any possible range", p.size)
		}
	})
}

type seedFunc struct {
	code []byte
	wide bool
}

func beWords(ws ...uint32) []byte {
	b := make([]byte, 4*len(ws))
	for i, w := range ws {
		binary.BigEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// prologueSeeds compiles the test programs with the PA-RISC cross
// compilers (when installed) and cuts each function out of .text.
func prologueSeeds(f *testing.F) []seedFunc {
	dir := f.TempDir()
	var out []seedFunc
	for _, c := range []struct {
		gcc, src string
		wide     bool
	}{
		{"hppa-linux-gnu-gcc-12", "testdata/progs/frames.c", false},
		{"hppa-linux-gnu-gcc-12", "testdata/progs/fpsave.c", false},
		{"hppa-linux-gnu-gcc-12", "testdata/progs/deep.c", false},
		{"hppa64-linux-gnu-gcc-12", "testdata/progs/frames64.c", true},
		{"hppa64-linux-gnu-gcc-12", "testdata/progs/crash64.c", true},
		{"hppa64-linux-gnu-gcc-12", "testdata/progs/hpuxsig64.c", true},
	} {
		p := filepath.Join(dir, filepath.Base(c.src)+".o")
		if exec.Command(c.gcc, "-O1", "-c", "-o", p, c.src).Run() != nil {
			continue
		}
		ef, err := elf.Open(p)
		if err != nil {
			continue
		}
		text := ef.Section(".text")
		syms, _ := ef.Symbols()
		if text == nil {
			ef.Close()
			continue
		}
		data, err := text.Data()
		if err != nil {
			ef.Close()
			continue
		}
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) != elf.STT_FUNC || int(s.Section) >= len(ef.Sections) || ef.Sections[s.Section] != text {
				continue
			}
			if s.Value+s.Size <= uint64(len(data)) && s.Size > 0 {
				out = append(out, seedFunc{data[s.Value : s.Value+s.Size], c.wide})
			}
		}
		ef.Close()
	}
	return out
}

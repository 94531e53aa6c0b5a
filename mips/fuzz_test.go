package mips

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// fuzzStackAddr is where the fuzzed stack is mapped.
const fuzzStackAddr = 0x7ff00000

// FuzzStep steps through a real o32 little-endian program's text and
// CFI with a stack and registers from the fuzzer: CFI rows, the
// trampoline check, the prologue decoder and ra all run on hostile
// input, and $zero stays zero.
func FuzzStep(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.MIPSEL, f.TempDir(), "prog", fuzzspace.Source, "-O2", "-static")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint32(seed[60:], uint32(mid+16)) // a saved ra
	f.Add(seed, leaf+4, uint64(fuzzStackAddr), uint64(fuzzStackAddr+64), mid+8, true)
	f.Add(seed, mid+24, uint64(fuzzStackAddr), uint64(0), uint64(0), false)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr+8), uint64(0), mid+8, true)
	a := Arch{}
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp, ra uint64, exact bool) {
		as := fuzzspace.Named{Space: &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}}
		regs := map[int]uint64{PC: pc & 0xffffffff, SP: sp & 0xffffffff, FP: fp & 0xffffffff, RA: ra & 0xffffffff}
		fuzzspace.Walk(t, a, as, fuzzspace.Frame(a, exact, regs), func(t *testing.T, depth int, caller *unwind.Frame) {
			if v, ok := caller.Get(Zero); ok && v != 0 {
				t.Fatalf("depth %d: zero = %#x", depth, v)
			}
		})
	})
}

// FuzzFrameFromThread: register notes of any size and content give a
// frame or an error, for both ABIs.
func FuzzFrameFromThread(f *testing.F) {
	gregs := make([]byte, nGRegs*8)
	for i := range gregs {
		gregs[i] = byte(i)
	}
	f.Add(gregs, true)
	f.Add(gregs[:nGRegs*4], false)
	f.Add(gregs[:100], false)
	f.Fuzz(func(t *testing.T, gregs []byte, wide bool) {
		fuzzspace.FrameFromThread(t, Arch{wide: wide, big: true}, &unwind.ThreadState{GRegs: gregs, Order: binary.BigEndian})
	})
}

// FuzzDynListAddr: any code at _U_dyn_info_list_addr gives an address
// or an error.
func FuzzDynListAddr(f *testing.F) {
	f.Add([]byte{0x0a, 0x00, 0x1c, 0x3c, 0xa0, 0x50, 0x9c, 0x27, 0x21, 0xe0, 0x99, 0x03, 0x08, 0x00, 0xe0, 0x03, 0x58, 0x80, 0x82, 0x8f}, false)
	f.Add([]byte{0x0b, 0x00, 0x03, 0x3c, 0x2d, 0x18, 0x79, 0x00, 0xc0, 0xe7, 0x63, 0x64, 0x08, 0x00, 0xe0, 0x03, 0x60, 0x80, 0x62, 0xdc}, true)
	f.Fuzz(func(t *testing.T, code []byte, wide bool) {
		const at = 0x10000
		as := &unwindtest.Space{Mem: []unwindtest.Region{{Addr: at, Data: code}}}
		_, _ = Arch{wide: wide}.DynListAddr(as, nil, 0, at)
	})
}

package sh

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

// FuzzStep steps through a real sh4 program's text and CFI with a stack
// and registers from the fuzzer: CFI rows, the trampoline check (its
// system call number read from anywhere), the prologue decoder, pr and
// the stack scan all run on hostile input.
func FuzzStep(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.SH4, f.TempDir(), "prog", fuzzspace.Source, "-O2", "-static")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint32(seed[60:], uint32(mid+12)) // a saved pr
	f.Add(seed, leaf+2, uint64(fuzzStackAddr), uint64(fuzzStackAddr+64), mid+8, true)
	f.Add(seed, mid+24, uint64(fuzzStackAddr), uint64(0), uint64(0), false)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr+8), uint64(0), mid+8, true)
	a := Arch{}
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp, pr uint64, exact bool) {
		as := fuzzspace.Named{Space: &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}}
		regs := map[int]uint64{PC: pc & 0xffffffff, SP: sp & 0xffffffff, FP: fp & 0xffffffff, PR: pr & 0xffffffff}
		fuzzspace.Walk(t, a, as, fuzzspace.Frame(a, exact, regs))
	})
}

// FuzzFrameFromThread: register notes of any size and content give a
// frame or an error.
func FuzzFrameFromThread(f *testing.F) {
	gregs := make([]byte, gregsSize)
	for i := range gregs {
		gregs[i] = byte(i)
	}
	f.Add(gregs)
	f.Add(gregs[:50])
	f.Fuzz(func(t *testing.T, gregs []byte) {
		fuzzspace.FrameFromThread(t, Arch{}, &unwind.ThreadState{GRegs: gregs, Order: binary.LittleEndian})
	})
}

// FuzzDynListAddr: any code at _U_dyn_info_list_addr gives an address
// or an error.
func FuzzDynListAddr(f *testing.F) {
	// gcc's forms: the literal-pool load, and PIC's mova/GOT.
	f.Add([]byte{0x01, 0xd0, 0x0b, 0x00, 0x09, 0x00, 0x09, 0x00, 0x08, 0x00, 0x01, 0x00})
	f.Add([]byte{0xc6, 0x2f, 0x03, 0xc7, 0x02, 0xdc, 0x0c, 0x3c, 0x02, 0xd0, 0xce, 0x00, 0x0b, 0x00, 0xf6, 0x6c, 0xa0, 0xfb, 0x01, 0x00, 0x1c, 0x00, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, code []byte) {
		const at = 0x10000
		as := &unwindtest.Space{Mem: []unwindtest.Region{{Addr: at, Data: code}}}
		_, _ = Arch{}.DynListAddr(as, nil, 0, at)
	})
}

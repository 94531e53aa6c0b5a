package sparc64

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
)

// fuzzStackAddr is where the fuzzed stack is mapped.
const fuzzStackAddr = 0x7fe000000

// FuzzStep steps through a real sparc64 program's text and CFI with a
// stack and registers from the fuzzer: CFI rows with window saves, the
// stub check, the save search, the leaf and the saved-window steps all
// run on hostile input, and %g0 stays zero.
func FuzzStep(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.SPARC64, f.TempDir(), "prog", fuzzspace.Source, "-O2", "-static")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	seed := make([]byte, 512)
	binary.BigEndian.PutUint64(seed[64+15*8:], mid+8) // a saved %i7 in the window at fp+bias
	sp := uint64(fuzzStackAddr) - stackBias
	f.Add(seed, leaf, sp, sp+64, mid+8, mid+16, true)
	f.Add(seed, mid+24, sp, sp+64, mid+8, uint64(0), false)
	f.Add(seed, uint64(0), sp+8, uint64(0), uint64(0), mid, true)
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp, i7, o7 uint64, exact bool) {
		as := fuzzspace.Named{Space: &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}}
		regs := map[int]uint64{PC: pc, SP: sp, FP: fp, I7: i7, O7: o7}
		fuzzspace.Walk(t, Arch{}, as, fuzzspace.Frame(Arch{}, exact, regs), func(t *testing.T, depth int, caller *unwind.Frame) {
			if v, ok := caller.Get(G0); ok && v != 0 {
				t.Fatalf("depth %d: g0 = %#x", depth, v)
			}
		})
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
	f.Add(gregs[:100])
	f.Fuzz(func(t *testing.T, gregs []byte) {
		fuzzspace.FrameFromThread(t, Arch{}, &unwind.ThreadState{GRegs: gregs, Order: binary.BigEndian})
	})
}

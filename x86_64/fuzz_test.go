package x86_64_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/x86_64"
)

const fuzzStackAddr = 0x7ff000000000

// FuzzStep runs Step on a real program's CFI with a stack of fuzzer
// bytes and fuzzed registers (internal/fuzzspace).
func FuzzStep(f *testing.F) {
	dir := f.TempDir()
	exe := testenv.BuildC(f, dir, "prog", fuzzspace.Source, "-O2", "-static")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint64(seed[8:], mid+12)
	f.Add(seed, leaf, uint64(fuzzStackAddr), uint64(fuzzStackAddr+16), true)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr+8), uint64(fuzzStackAddr), true)
	f.Add(seed, mid+20, uint64(fuzzStackAddr+32), uint64(0), false)
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}
		regs := map[int]uint64{x86_64.RIP: pc, x86_64.RSP: sp, x86_64.RBP: fp}
		fuzzspace.Walk(t, x86_64.Arch{}, as, fuzzspace.Frame(x86_64.Arch{}, exact, regs))
	})
}

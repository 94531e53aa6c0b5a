package x86_64_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

const fuzzStackAddr = 0x7ff000000000

// FuzzStep runs Step on a real program's CFI with a stack of fuzzer
// bytes and fuzzed registers (internal/fuzzspace).
func FuzzStep(f *testing.F) {
	dir := f.TempDir()
	exe := testenv.BuildC(f, dir, "prog", `
#include <stdio.h>
__attribute__((noinline)) int leaf(int *p) { return *p; }
__attribute__((noinline)) int mid(int *p, int n) { char buf[64]; snprintf(buf, sizeof buf, "%d", n); return leaf(p) + buf[0]; }
int main(int argc, char **argv) { return mid(argc > 9 ? &argc : 0, argc); }
`, "-O2", "-static")
	prog := fuzzspace.Open(f, exe)
	leafSym, _ := prog.Obj.LookupSymbol("leaf")
	midSym, _ := prog.Obj.LookupSymbol("mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint64(seed[8:], midSym.Addr+12)
	f.Add(seed, leafSym.Addr, uint64(fuzzStackAddr), uint64(fuzzStackAddr+16), true)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr+8), uint64(fuzzStackAddr), true)
	f.Add(seed, midSym.Addr+20, uint64(fuzzStackAddr+32), uint64(0), false)
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}
		callee := unwind.NewFrame(x86_64.NumRegs)
		callee.Set(x86_64.RIP, pc, unwind.SaveLoc{})
		callee.Set(x86_64.RSP, sp, unwind.SaveLoc{})
		callee.Set(x86_64.RBP, fp, unwind.SaveLoc{})
		callee.ExactPC = exact
		fuzzspace.Walk(t, x86_64.Arch{}, as, callee)
	})
}

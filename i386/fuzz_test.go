package i386_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/i386"
	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
)

const fuzzStackAddr = 0xff000000

// FuzzStep runs Step on a real i386 program's CFI and CFI-less sigreturn
// trampolines with a stack of fuzzer bytes and fuzzed registers
// (internal/fuzzspace): CFI rows, both sigcontext layouts, frame
// pointers, calls through wild pointers and the scan.
func FuzzStep(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.I386, f.TempDir(), "prog", `
#include <stdio.h>
asm(".text\n nop\n__restore: popl %eax\n movl $119, %eax\n int $0x80\n"
    " nop\n__restore_rt: movl $173, %eax\n int $0x80\n");
__attribute__((noinline)) int leaf(int *p) { return *p; }
__attribute__((noinline)) int mid(int *p, int n) { char buf[64]; snprintf(buf, sizeof buf, "%d", n); return leaf(p) + buf[0]; }
int main(int argc, char **argv) { return mid(argc > 9 ? &argc : 0, argc); }
`, "-O2", "-static")
	prog := fuzzspace.Open(f, exe)
	sym := func(name string) uint64 {
		s, ok := prog.Obj.LookupSymbol(name)
		if !ok {
			f.Fatalf("no symbol %s", name)
		}
		return s.Addr
	}
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint32(seed[4:], uint32(sym("mid")+12))
	for _, s := range []struct {
		pc, sp, fp uint64
		exact      bool
	}{
		{sym("leaf"), fuzzStackAddr, fuzzStackAddr + 16, true},
		{0, fuzzStackAddr + 4, fuzzStackAddr, true},
		{sym("mid") + 20, fuzzStackAddr + 32, 0, false},
		{sym("__restore"), fuzzStackAddr, 0, false},
		{sym("__restore") + 1, fuzzStackAddr, 0, true},
		{sym("__restore_rt"), fuzzStackAddr, 0, false},
	} {
		f.Add(seed, s.pc, s.sp, s.fp, s.exact)
	}
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}
		callee := unwind.NewFrame(i386.NumRegs)
		callee.Set(i386.EIP, pc, unwind.SaveLoc{})
		callee.Set(i386.ESP, sp, unwind.SaveLoc{})
		callee.Set(i386.EBP, fp, unwind.SaveLoc{})
		callee.ExactPC = exact
		fuzzspace.Walk(t, i386.Arch{}, as, callee)
	})
}

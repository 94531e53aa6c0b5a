package i386_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/i386"
	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
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
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint32(seed[4:], uint32(prog.Sym(f, "mid")+12))
	for _, s := range []struct {
		pc, sp, fp uint64
		exact      bool
	}{
		{prog.Sym(f, "leaf"), fuzzStackAddr, fuzzStackAddr + 16, true},
		{0, fuzzStackAddr + 4, fuzzStackAddr, true},
		{prog.Sym(f, "mid") + 20, fuzzStackAddr + 32, 0, false},
		{prog.Sym(f, "__restore"), fuzzStackAddr, 0, false},
		{prog.Sym(f, "__restore") + 1, fuzzStackAddr, 0, true},
		{prog.Sym(f, "__restore_rt"), fuzzStackAddr, 0, false},
	} {
		f.Add(seed, s.pc, s.sp, s.fp, s.exact)
	}
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}
		regs := map[int]uint64{i386.EIP: pc, i386.ESP: sp, i386.EBP: fp}
		fuzzspace.Walk(t, i386.Arch{}, as, fuzzspace.Frame(i386.Arch{}, exact, regs))
	})
}

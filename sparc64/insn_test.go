package sparc64

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// %o0 = 0, %o1 = 0x1000, %o2 = 0, %i0 = 0x2000, %sp and %fp (biased),
// %g1 = a wild pointer.
var insnRegs = map[int]uint64{1: 0xdead0000, O0: 0, O0 + 1: 0x1000, O0 + 2: 0, I0: 0x2000, SP: 0x7feffff0001, FP: 0x7feffff1001}

var insnCases = []unwindtest.InsnCase{
	{Asm: "ld [%o0+8], %g1", Mem: unwind.MemRead, MemAddr: 8, Regs: []int{O0, 1}},
	{Asm: "ldx [%o0+0x18], %g1", Mem: unwind.MemRead, MemAddr: 0x18, Regs: []int{O0, 1}},
	{Asm: "ldx [%fp+-20], %g1", Mem: unwind.MemRead, MemAddr: 0x7feffff1001 - 20, Regs: []int{FP, 1}},
	{Asm: "ld [%o0], %g1", Mem: unwind.MemRead, MemAddr: 0, Regs: []int{O0, 1}},
	{Asm: "ld [%o0+%o1], %g1", Mem: unwind.MemRead, MemAddr: 0x1000, Regs: []int{O0, O0 + 1, 1}},
	{Asm: "ldub [%g0+12], %o2", Mem: unwind.MemRead, MemAddr: 12, Regs: []int{O0 + 2}},
	{Asm: "ldsw [%i0+2047], %l0", Mem: unwind.MemRead, MemAddr: 0x27ff, Regs: []int{I0, L0}},
	{Asm: "st %g1, [%o0+8]", Mem: unwind.MemWrite, MemAddr: 8, Regs: []int{1, O0}},
	{Asm: "stx %g0, [%i0+16]", Mem: unwind.MemWrite, MemAddr: 0x2010, Regs: []int{I0}},
	{Asm: "stb %o1, [%o2]", Mem: unwind.MemWrite, MemAddr: 0, Regs: []int{O0 + 1, O0 + 2}},
	{Asm: "ld [%o0+4], %f2", Mem: unwind.MemRead, MemAddr: 4, Regs: []int{O0, F0 + 2}},
	{Asm: "std %f4, [%sp+2175]", Mem: unwind.MemWrite, MemAddr: 0x7feffff0001 + 2175, Regs: []int{F0 + 4, SP}},
	{Asm: "swap [%o1], %o2", Mem: unwind.MemReadWrite, MemAddr: 0x1000, Regs: []int{O0 + 1, O0 + 2}},
	{Asm: "call 0x100", Class: unwind.InsnCall, Regs: []int{O7}},
	{Asm: "jmpl %g1, %o7", Class: unwind.InsnCall, Regs: []int{O7, 1}},
	{Asm: "jmp %g1", Class: unwind.InsnJump, Regs: []int{1}},
	{Asm: "ret", Class: unwind.InsnReturn, Regs: []int{I7}},
	{Asm: "retl", Class: unwind.InsnReturn, Regs: []int{O7}},
	{Asm: "ta 5", Class: unwind.InsnTrap},
	{Asm: "ta 0x6d"},
	{Asm: "tne %icc, 5", Class: unwind.InsnCondTrap},
	{Asm: "illtrap 0", Class: unwind.InsnTrap},
	{Asm: "ldx [%o0+%g0], %g1", Mem: unwind.MemRead, MemAddr: 0, Regs: []int{O0, 1}},
	{Asm: "ldd [%o1+8], %f34", Mem: unwind.MemRead, MemAddr: 0x1008, Regs: []int{O0 + 1, F0 + 34}},
}

// TestDecodeInsn: the cases against binutils' objdump.
func TestDecodeInsn(t *testing.T) {
	unwindtest.CheckDecodeInsn(t, unwindtest.InsnSuite{
		Arch: Arch{}, Prefix: "sparc64-linux-gnu-", ASFlags: []string{"-64", "-Av9"},
		Regs: insnRegs, Norm: unwindtest.NormInsn, Cases: insnCases, NeedTool: testenv.NeedTool,
	})
}

// FuzzDecodeInsn: any bytes decode or fail, never panic; a decoded
// instruction is 4 bytes.
func FuzzDecodeInsn(f *testing.F) {
	for _, s := range [][]byte{{0xc2, 0x02, 0x20, 0x08}, {0xc0, 0x76, 0x20, 0x10}, {0x9f, 0xc0, 0x40, 0x00}, {0x91, 0xd0, 0x20, 0x05}, {0x40, 0x00, 0x00, 0x40}} {
		f.Add(s, uint64(0x10000))
	}
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		in, err := Arch{}.DecodeInsn(code, pc, func(r int) (uint64, bool) { return uint64(r) * 0x1111, r%3 != 0 })
		if err == nil && in.Len != 4 {
			t.Fatalf("length %d", in.Len)
		}
	})
}

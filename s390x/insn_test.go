package s390x_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/s390x"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

var insnRegs = map[int]uint64{0: 5, 1: 0, 2: 0x1000, 3: 0x30, 12: 0xdead0000, 14: 0x1000400, 15: 0x7ffc0000}

var insnCases = []unwindtest.InsnCase{
	{Asm: "lgf %r1,24(%r1)", Mem: unwind.MemRead, MemAddr: 24, Regs: []int{1}},
	{Asm: "mvhi 24(%r1),42", Mem: unwind.MemWrite, MemAddr: 24, Regs: []int{1}},
	{Asm: "st %r3,24(%r1)", Mem: unwind.MemWrite, MemAddr: 24, Regs: []int{3, 1}},
	{Asm: "lg %r1,8(%r2,%r3)", Mem: unwind.MemRead, MemAddr: 0x1038, Regs: []int{2, 3}},
	{Asm: "stmg %r11,%r15,88(%r15)", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 + 88, Regs: []int{11, 15}},
	{Asm: "lmg %r11,%r15,-160(%r15)", Mem: unwind.MemRead, MemAddr: 0x7ffc0000 - 160, Regs: []int{15}},
	{Asm: "l %r2,4(%r0,%r2)", Mem: unwind.MemRead, MemAddr: 0x1004, Regs: []int{2}},
	{Asm: "std %f0,8(%r2)", Mem: unwind.MemWrite, MemAddr: 0x1008, Regs: []int{s390x.F0, 2}},
	{Asm: "mvc 0(8,%r2),0(%r3)", Mem: unwind.MemReadWrite, MemAddr: 0x1000, Regs: []int{2, 3}},
	{Asm: "cli 0(%r2),1", Mem: unwind.MemRead, MemAddr: 0x1000, Regs: []int{2}},
	{Asm: "la %r1,8(%r2)", Regs: []int{1, 2}},
	{Asm: "sllg %r1,%r2,3", Regs: []int{1, 2}},
	{Asm: "basr %r14,%r12", Class: unwind.InsnCall, Regs: []int{14, 12}},
	{Asm: "br %r14", Class: unwind.InsnReturn, Regs: []int{14}},
	{Asm: "br %r1", Class: unwind.InsnJump, Regs: []int{1}},
	{Asm: "lgr %r2,%r3", Regs: []int{3}},
}

// TestDecodeInsn: the cases against binutils' objdump.
func TestDecodeInsn(t *testing.T) {
	unwindtest.CheckDecodeInsn(t, unwindtest.InsnSuite{
		Arch: s390x.Arch{}, Prefix: "s390x-linux-gnu-", Regs: insnRegs,
		Norm: unwindtest.NormInsn, Cases: insnCases, NeedTool: testenv.NeedTool,
	})
}

// FuzzDecodeInsn: any bytes decode or fail, never panic; a decoded
// instruction is 2, 4 or 6 bytes.
func FuzzDecodeInsn(f *testing.F) {
	for _, s := range [][]byte{{0xe3, 0x10, 0x10, 0x18, 0x00, 0x14}, {0x07, 0xfe}, {0x0d, 0xec}, {0xeb, 0xbf, 0xf0, 0x58, 0x00, 0x24}, {0xe5, 0x44, 0x10, 0x18, 0x00, 0x2a}} {
		f.Add(s, uint64(0x1000000))
	}
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		in, err := s390x.Arch{}.DecodeInsn(code, pc, func(r int) (uint64, bool) { return uint64(r) * 0x1111, r%3 != 0 })
		if err == nil && in.Len != 2 && in.Len != 4 && in.Len != 6 {
			t.Fatalf("length %d", in.Len)
		}
	})
}

package aarch64_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/aarch64"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

var insnRegs = map[int]uint64{0: 0, 1: 0x1000, 2: 3, 3: 0xfffffffffffffffe, aarch64.SP: 0x7ffc0000, aarch64.X29: 0x7ffc0100}

var insnCases = []unwindtest.InsnCase{
	{Asm: "ldr w0, [x0, #24]", Mem: unwind.MemRead, MemAddr: 24, Regs: []int{0}}, // x0 the base, not w0 the result,
	{Asm: "str x2, [x1, #8]", Mem: unwind.MemWrite, MemAddr: 0x1008, Regs: []int{2, 1}},
	{Asm: "stp x29, x30, [sp, #-32]!", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 - 32, Regs: []int{29, 30, aarch64.SP}},
	{Asm: "ldp x29, x30, [sp], #16", Mem: unwind.MemRead, MemAddr: 0x7ffc0000, Regs: []int{aarch64.SP}},
	{Asm: "ldr x0, [x1, x2, lsl #3]", Mem: unwind.MemRead, MemAddr: 0x1000 + 24, Regs: []int{1, 2}},
	{Asm: "ldrb w0, [x1, w3, sxtw]", Mem: unwind.MemRead, MemAddr: 0x1000 - 2, Regs: []int{1, 3}},
	{Asm: "strb w2, [x0]", Mem: unwind.MemWrite, MemAddr: 0, Regs: []int{2, 0}},
	{Asm: "stxr w3, x2, [x1]", Mem: unwind.MemWrite, MemAddr: 0x1000, Regs: []int{3, 2, 1}},
	{Asm: "blr x1", Class: unwind.InsnCall, Regs: []int{1}},
	{Asm: "ret", Class: unwind.InsnReturn, Regs: []int{30}},
	{Asm: "brk #0x3e8", Class: unwind.InsnTrap},
	{Asm: "add x0, x1, #4", Regs: []int{0, 1}},
}

// TestDecodeInsn: the cases against binutils' objdump.
func TestDecodeInsn(t *testing.T) {
	unwindtest.CheckDecodeInsn(t, unwindtest.InsnSuite{
		Arch: aarch64.Arch{}, Prefix: "aarch64-linux-gnu-", Header: ".arch armv8.1-a", Regs: insnRegs,
		Norm: unwindtest.NormInsn, Cases: insnCases, NeedTool: testenv.NeedTool,
	})
}

// FuzzDecodeInsn: any 4 bytes decode or fail, never panic.
func FuzzDecodeInsn(f *testing.F) {
	for _, s := range [][]byte{{0x00, 0x18, 0x40, 0xb9}, {0xfd, 0x7b, 0xbe, 0xa9}, {0x00, 0x7d, 0x20, 0xd4}, {0x20, 0x00, 0x3f, 0xd6}, {0x20, 0x78, 0x62, 0xf8}} {
		f.Add(s, uint64(0x400000))
	}
	var arch aarch64.Arch
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		in, err := arch.DecodeInsn(code, pc, func(r int) (uint64, bool) { return uint64(r) * 0x1111, r%3 != 0 })
		if err == nil && in.Len != 4 {
			t.Fatalf("length %d", in.Len)
		}
	})
}

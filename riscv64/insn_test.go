package riscv64_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/riscv64"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// a0 = 0, a1 = 0x1000, a5 = 0x30, sp, ra, t0 = a wild pointer.
var insnRegs = map[int]uint64{10: 0, 11: 0x1000, 15: 0x30, riscv64.SP: 0x7ffc0000, riscv64.RA: 0x10400, 5: 0xdead0000}

// The compressed encodings come first (gas picks them where it can),
// then the same instructions with .option norvc.
var insnCases = []unwindtest.InsnCase{
	{Asm: "lw a5,24(a0)", Mem: unwind.MemRead, MemAddr: 24, Regs: []int{10}},
	{Asm: "sw a5,24(a0)", Mem: unwind.MemWrite, MemAddr: 24, Regs: []int{15, 10}},
	{Asm: "ld ra,8(sp)", Mem: unwind.MemRead, MemAddr: 0x7ffc0008, Regs: []int{riscv64.SP}},
	{Asm: "sd s0,16(sp)", Mem: unwind.MemWrite, MemAddr: 0x7ffc0010, Regs: []int{8, riscv64.SP}},
	{Asm: "fld fa5,8(a1)", Mem: unwind.MemRead, MemAddr: 0x1008, Regs: []int{11}},
	{Asm: "jalr t0", Class: unwind.InsnCall, Regs: []int{riscv64.RA, 5}},
	{Asm: "jr t0", Class: unwind.InsnJump, Regs: []int{5}},
	{Asm: "ret", Class: unwind.InsnReturn, Regs: []int{riscv64.RA}},
	{Asm: "ebreak", Class: unwind.InsnTrap},
	{Asm: "mv a0,a1", Regs: []int{10, 11}},
	{Asm: ".option norvc"},
	{Asm: "lw a5,24(a0)", Mem: unwind.MemRead, MemAddr: 24, Regs: []int{10}},
	{Asm: "sb a5,-1(a1)", Mem: unwind.MemWrite, MemAddr: 0xfff, Regs: []int{15, 11}},
	{Asm: "lbu a5,0(zero)", Mem: unwind.MemRead, MemAddr: 0},
	{Asm: "lr.w a5,(a1)", Mem: unwind.MemRead, MemAddr: 0x1000, Regs: []int{11}},
	{Asm: "sc.d a5,a0,(a1)", Mem: unwind.MemWrite, MemAddr: 0x1000, Regs: []int{10, 11}},
	{Asm: "amoadd.w a5,a0,(a1)", Mem: unwind.MemReadWrite, MemAddr: 0x1000, Regs: []int{10, 11}},
	{Asm: "jalr t0", Class: unwind.InsnCall, Regs: []int{riscv64.RA, 5}},
	{Asm: "ret", Class: unwind.InsnReturn, Regs: []int{riscv64.RA}},
	{Asm: "ebreak", Class: unwind.InsnTrap},
	{Asm: "unimp", Class: unwind.InsnTrap},
}

// TestDecodeInsn: the cases, compressed and not, against binutils'
// objdump.
func TestDecodeInsn(t *testing.T) {
	unwindtest.CheckDecodeInsn(t, unwindtest.InsnSuite{
		Arch: riscv64.Arch{}, Prefix: "riscv64-linux-gnu-", Header: ".option rvc", ASFlags: []string{"-march=rv64gc"},
		Regs: insnRegs, Norm: unwindtest.NormInsn, Cases: insnCases, NeedTool: testenv.NeedTool,
	})
}

// FuzzDecodeInsn: any bytes decode or fail, never panic; a decoded
// instruction is 2 or 4 bytes.
func FuzzDecodeInsn(f *testing.F) {
	for _, s := range [][]byte{{0x1c, 0x4d}, {0x83, 0x27, 0x85, 0x01}, {0x82, 0x80}, {0x02, 0x90}, {0xaf, 0xa7, 0x05, 0x10}, {0x73, 0x10, 0x00, 0xc0}} {
		f.Add(s, uint64(0x10000))
	}
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		in, err := riscv64.Arch{}.DecodeInsn(code, pc, func(r int) (uint64, bool) { return uint64(r) * 0x1111, r%3 != 0 })
		if err == nil && in.Len != 2 && in.Len != 4 {
			t.Fatalf("length %d", in.Len)
		}
	})
}

package mips

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// v0 = 0, a0 = 0x1000, a1 = 0, sp, t9 = a wild pointer.
var insnRegs = map[int]uint64{2: 0, 4: 0x1000, 5: 0, SP: 0x7ffc0000, 25: 0xdead0000}

// insnCases are the forms the decoder covers, as gas assembles them
// (".set noreorder": no delay-slot nops between them).
var insnCases = []unwindtest.InsnCase{
	{Asm: "lw $3,24($4)", Mem: unwind.MemRead, MemAddr: 0x1018, Regs: []int{3, 4}},
	{Asm: "sw $3,0($2)", Mem: unwind.MemWrite, MemAddr: 0, Regs: []int{3, 2}},
	{Asm: "sw $0,8($2)", Mem: unwind.MemWrite, MemAddr: 8, Regs: []int{2}},
	{Asm: "lbu $3,-1($4)", Mem: unwind.MemRead, MemAddr: 0xfff, Regs: []int{3, 4}},
	{Asm: "lh $3,2($0)", Mem: unwind.MemRead, MemAddr: 2, Regs: []int{3}},
	{Asm: "sb $3,4($5)", Mem: unwind.MemWrite, MemAddr: 4, Regs: []int{3, 5}},
	{Asm: "lwl $3,3($4)", Mem: unwind.MemRead, MemAddr: 0x1003, Regs: []int{3, 4}},
	{Asm: "lwc1 $f0,8($4)", Mem: unwind.MemRead, MemAddr: 0x1008, Regs: []int{F0, 4}},
	{Asm: "sdc1 $f2,16($29)", Mem: unwind.MemWrite, MemAddr: 0x7ffc0010, Regs: []int{F0 + 2, SP}},
	{Asm: "jr $31", Class: unwind.InsnReturn, Regs: []int{RA}},
	{Asm: "jr $25", Class: unwind.InsnJump, Regs: []int{25}},
	{Asm: "jalr $25", Class: unwind.InsnCall, Regs: []int{RA, 25}},
	{Asm: "jalr $2,$25", Class: unwind.InsnCall, Regs: []int{2, 25}},
	{Asm: "jal 0x400620", Class: unwind.InsnCall, Regs: []int{RA}},
	{Asm: "bal 1f", Class: unwind.InsnCall, Regs: []int{RA}},
	{Asm: "1: break", Class: unwind.InsnTrap},
	{Asm: "break 7", Class: unwind.InsnTrap},
	{Asm: "teq $0,$0", Class: unwind.InsnTrap},
	{Asm: "teq $4,$0,7", Class: unwind.InsnCondTrap, Regs: []int{4}},
	{Asm: "tne $2,$3", Class: unwind.InsnCondTrap, Regs: []int{2, 3}},
}

// TestDecodeInsn: the cases against binutils' objdump, o32 in both byte
// orders.
func TestDecodeInsn(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		arch   Arch
	}{{"mips-linux-gnu-", Arch{big: true}}, {"mipsel-linux-gnu-", Arch{}}} {
		t.Run(tc.arch.Name(), func(t *testing.T) {
			unwindtest.CheckDecodeInsn(t, unwindtest.InsnSuite{
				Arch: tc.arch, Prefix: tc.prefix, Header: ".set noreorder", ASFlags: []string{"-march=mips32r2"},
				Regs: insnRegs, Norm: unwindtest.NormInsn, Cases: insnCases, NeedTool: testenv.NeedTool,
			})
		})
	}
}

// TestDecodeInsnN64: n64's loads of doublewords, and its names of $8–$15
// (a4–a7, t0–t3), against objdump.
func TestDecodeInsnN64(t *testing.T) {
	unwindtest.CheckDecodeInsn(t, unwindtest.InsnSuite{
		Arch: Arch{wide: true}, Prefix: "mips64el-linux-gnuabi64-", Header: ".set noreorder",
		Regs: map[int]uint64{4: 0x1000, 8: 0}, Norm: unwindtest.NormInsn, NeedTool: testenv.NeedTool,
		Cases: []unwindtest.InsnCase{
			{Asm: "ld $2,8($4)", Mem: unwind.MemRead, MemAddr: 0x1008, Regs: []int{2, 4}},
			{Asm: "sd $12,16($8)", Mem: unwind.MemWrite, MemAddr: 16, Regs: []int{12, 8}},
			{Asm: "lwu $9,4($4)", Mem: unwind.MemRead, MemAddr: 0x1004, Regs: []int{9, 4}},
			{Asm: "jalr $25", Class: unwind.InsnCall, Regs: []int{RA, 25}},
		},
	})
}

// FuzzDecodeInsn: any bytes decode or fail, never panic; a decoded
// instruction is 4 bytes.
func FuzzDecodeInsn(f *testing.F) {
	for _, s := range [][]byte{{0x8c, 0x82, 0x00, 0x18}, {0xac, 0x40, 0x00, 0x00}, {0x03, 0x20, 0xf8, 0x09}, {0x00, 0x00, 0x00, 0x34}, {0x0c, 0x10, 0x01, 0x88}} {
		f.Add(s, uint64(0x10000), true, false)
	}
	f.Fuzz(func(t *testing.T, code []byte, pc uint64, big, wide bool) {
		in, err := Arch{big: big, wide: wide}.DecodeInsn(code, pc, func(r int) (uint64, bool) { return uint64(r) * 0x1111, r%3 != 0 })
		if err == nil && in.Len != 4 {
			t.Fatalf("length %d", in.Len)
		}
	})
}

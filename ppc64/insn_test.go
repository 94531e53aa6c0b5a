package ppc64_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/ppc64"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

var insnRegs = map[int]uint64{0: 7, 1: 0x7ffc0000, 3: 0, 4: 0x1000, 5: 0x30, 9: 0, 12: 0xdead0000,
	ppc64.CTR: 0xdead0000, ppc64.LR: 0x10000400}

var insnCases = []unwindtest.InsnCase{
	{Asm: "lwz 10,24(9)", Mem: unwind.MemRead, MemAddr: 24, Regs: []int{9}},
	{Asm: "stw 10,24(9)", Mem: unwind.MemWrite, MemAddr: 24, Regs: []int{10, 9}},
	{Asm: "std 31,-8(1)", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 - 8, Regs: []int{31, 1}},
	{Asm: "stdu 1,-48(1)", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 - 48, Regs: []int{1}},
	{Asm: "ld 0,16(1)", Mem: unwind.MemRead, MemAddr: 0x7ffc0010, Regs: []int{1}},
	{Asm: "lbz 3,4(0)", Mem: unwind.MemRead, MemAddr: 4},
	{Asm: "ldx 3,4,5", Mem: unwind.MemRead, MemAddr: 0x1030, Regs: []int{4, 5}},
	{Asm: "stwx 3,0,5", Mem: unwind.MemWrite, MemAddr: 0x30, Regs: []int{3, 5}},
	{Asm: "lfd 1,8(4)", Mem: unwind.MemRead, MemAddr: 0x1008, Regs: []int{4}},
	{Asm: "ldarx 3,0,4", Mem: unwind.MemRead, MemAddr: 0x1000, Regs: []int{4}},
	{Asm: "stdcx. 3,0,4", Mem: unwind.MemWrite, MemAddr: 0x1000, Regs: []int{3, 4}},
	{Asm: "dcbz 0,4", Mem: unwind.MemWrite, MemAddr: 0x1000, Regs: []int{4}},
	{Asm: "bctrl", Class: unwind.InsnCall, Regs: []int{ppc64.CTR}},
	{Asm: "bctr", Class: unwind.InsnJump, Regs: []int{ppc64.CTR}},
	{Asm: "blr", Class: unwind.InsnReturn, Regs: []int{ppc64.LR}},
	{Asm: "trap", Class: unwind.InsnTrap},
	// Conditional traps: twi 4,r9,0 traps when r9 == 0 (gcc's check
	// before a division, Go's nil checks).
	{Asm: "twi 4,9,0", Class: unwind.InsnCondTrap, Regs: []int{9}},
	{Asm: "tdi 16,3,-1", Class: unwind.InsnCondTrap, Regs: []int{3}},
	{Asm: "tw 4,4,5", Class: unwind.InsnCondTrap, Regs: []int{4, 5}},
	{Asm: "td 5,4,5", Class: unwind.InsnCondTrap, Regs: []int{4, 5}},
	{Asm: "twi 31,9,0", Class: unwind.InsnTrap, Regs: []int{9}},
	{Asm: "tdi 7,9,0", Class: unwind.InsnTrap, Regs: []int{9}},
	{Asm: "tw 31,4,5", Class: unwind.InsnTrap, Regs: []int{4, 5}},
	{Asm: "tw 3,4,5", Class: unwind.InsnCondTrap, Regs: []int{4, 5}},
	{Asm: "twi 0,9,0", Regs: []int{9}}, // never traps
	{Asm: "add 3,4,5", Regs: []int{3, 4, 5}},
	{Asm: "mtctr 12", Regs: []int{12}},
}

// TestDecodeInsn: the cases in both byte orders against binutils'
// objdump (ppc64le and big-endian ppc64).
func TestDecodeInsn(t *testing.T) {
	for _, c := range []struct {
		arch   string
		prefix string
	}{{"ppc64le", "powerpc64le-linux-gnu-"}, {"ppc64", "powerpc64-linux-gnu-"}} {
		t.Run(c.arch, func(t *testing.T) {
			arch, err := unwind.LookupArch(c.arch)
			if err != nil {
				t.Fatal(err)
			}
			unwindtest.CheckDecodeInsn(t, unwindtest.InsnSuite{
				Arch: arch, Prefix: c.prefix, Regs: insnRegs,
				Norm: unwindtest.NormInsn, Cases: insnCases, NeedTool: testenv.NeedTool,
			})
		})
	}
}

// FuzzDecodeInsn: any bytes decode or fail, in either byte order, never
// panic; a decoded instruction is 4 or 8 bytes.
func FuzzDecodeInsn(f *testing.F) {
	for _, s := range [][]byte{{0x18, 0x00, 0x49, 0x81}, {0x21, 0x04, 0x80, 0x4e}, {0x2a, 0x20, 0x64, 0x7c}, {0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x60, 0xe4}} {
		f.Add(s, uint64(0x10000000))
	}
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		for _, name := range []string{"ppc64le", "ppc64"} {
			arch, _ := unwind.LookupArch(name)
			in, err := arch.(unwind.InsnDecoder).DecodeInsn(code, pc, func(r int) (uint64, bool) { return uint64(r) * 0x1111, r%3 != 0 })
			if err == nil && in.Len != 4 && in.Len != 8 {
				t.Fatalf("%s: length %d", name, in.Len)
			}
		}
	})
}

package pa64_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/pa64"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// r26 (the first argument) = 0, r25 = 3, r24 = 0x1000, sp, r22 a wild
// pointer.
var insnRegs = map[int]uint64{26: 0, 25: 3, 24: 0x1000, pa64.SP: 0x7ffc0000, 22: 0xdead0000, pa64.RP: 0x10400}

var insnCases = []unwindtest.InsnCase{
	{Asm: "ldw 24(%r26),%r28", Mem: unwind.MemRead, MemAddr: 24, Regs: []int{26, 28}},
	{Asm: "stw %r28,24(%r26)", Mem: unwind.MemWrite, MemAddr: 24, Regs: []int{28, 26}},
	{Asm: "ldb 3(%r24),%r28", Mem: unwind.MemRead, MemAddr: 0x1003, Regs: []int{24, 28}},
	{Asm: "sth %r28,-6(%r30)", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 - 6, Regs: []int{28, pa64.SP}},
	{Asm: "ldh -100(%r24),%r20", Mem: unwind.MemRead, MemAddr: 0x1000 - 100, Regs: []int{24, 20}},
	{Asm: "stwm %r3,64(%r30)", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000, Regs: []int{3, pa64.SP}},
	{Asm: "ldwm -64(%r30),%r3", Mem: unwind.MemRead, MemAddr: 0x7ffc0000 - 64, Regs: []int{pa64.SP, 3}},
	{Asm: "ldwx %r25(%r24),%r28", Mem: unwind.MemRead, MemAddr: 0x1003, Regs: []int{25, 24, 28}},
	{Asm: "ldwx,s %r25(%r24),%r28", Mem: unwind.MemRead, MemAddr: 0x100c, Regs: []int{25, 24, 28}},
	{Asm: "ldws 4(%r24),%r28", Mem: unwind.MemRead, MemAddr: 0x1004, Regs: []int{24, 28}},
	{Asm: "stws %r28,4(%r26)", Mem: unwind.MemWrite, MemAddr: 4, Regs: []int{28, 26}},
	{Asm: "ldbx %r25(%r24),%r28", Mem: unwind.MemRead, MemAddr: 0x1003, Regs: []int{25, 24, 28}},
	{Asm: "ldhs,mb -2(%r24),%r28", Mem: unwind.MemRead, MemAddr: 0xffe, Regs: []int{24, 28}},
	{Asm: "fldds 8(%r24),%fr4", Mem: unwind.MemRead, MemAddr: 0x1008, Regs: []int{24, pa64.FR0 + 4}},
	{Asm: "fstds %fr4,8(%r26)", Mem: unwind.MemWrite, MemAddr: 8, Regs: []int{pa64.FR0 + 4, 26}},
	{Asm: "bv %r0(%r2)", Class: unwind.InsnReturn, Regs: []int{pa64.RP}},
	{Asm: "ble 0(%sr4,%r22)", Class: unwind.InsnCall, Regs: []int{22}},
	{Asm: "break 0,0", Class: unwind.InsnTrap},
	{Asm: "ldd 8(%r26),%r28", Mem: unwind.MemRead, MemAddr: 8, Regs: []int{26, 28}},
	{Asm: "std %r28,16(%r24)", Mem: unwind.MemWrite, MemAddr: 0x1010, Regs: []int{28, 24}},
	{Asm: "std,ma %r3,128(%r30)", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000, Regs: []int{3, pa64.SP}},
	{Asm: "ldd,mb -128(%r30),%r3", Mem: unwind.MemRead, MemAddr: 0x7ffc0000 - 128, Regs: []int{pa64.SP, 3}},
	{Asm: "ldd 4000(%r24),%r28", Mem: unwind.MemRead, MemAddr: 0x1000 + 4000, Regs: []int{24, 28}},
	{Asm: "fldd 1000(%r24),%fr4", Mem: unwind.MemRead, MemAddr: 0x1000 + 1000, Regs: []int{24, pa64.FR0 + 4}},
	{Asm: "bve,l (%r22),%r2", Class: unwind.InsnCall, Regs: []int{22}},
	{Asm: "bve (%r2)", Class: unwind.InsnReturn, Regs: []int{pa64.RP}},
	{Asm: "bv %r0(%r22)", Class: unwind.InsnJump, Regs: []int{22}},
}

// TestDecodeInsn: the cases, PA 2.0 code, against binutils' objdump for
// hppa64 and (32-bit, .level 2.0) hppa.
func TestDecodeInsn(t *testing.T) {
	for _, c := range []struct {
		wide   bool
		prefix string
		header string
	}{{true, "hppa64-linux-gnu-", ""}, {false, "hppa-linux-gnu-", ".level 2.0"}} {
		arch := pa64.New(c.wide)
		t.Run(arch.Name(), func(t *testing.T) {
			unwindtest.CheckDecodeInsn(t, unwindtest.InsnSuite{
				Arch: arch, Prefix: c.prefix, Header: c.header, Regs: insnRegs,
				Norm: unwindtest.NormInsn, Cases: insnCases, NeedTool: testenv.NeedTool,
			})
		})
	}
}

// FuzzDecodeInsn: any bytes decode or fail, never panic.
func FuzzDecodeInsn(f *testing.F) {
	for _, s := range [][]byte{{0x4b, 0x5c, 0x00, 0x30}, {0x0f, 0xdc, 0x12, 0x55}, {0x53, 0xc3, 0x3f, 0x0d}, {0xe8, 0x40, 0xc0, 0x00}, {0x2f, 0x50, 0x12, 0x04}} {
		f.Add(s, uint64(0x10000))
	}
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		for _, wide := range []bool{false, true} {
			in, err := pa64.New(wide).DecodeInsn(code, pc, func(r int) (uint64, bool) { return uint64(r) * 0x1111, r%3 != 0 })
			if err == nil && in.Len != 4 {
				t.Fatalf("length %d", in.Len)
			}
		}
	})
}

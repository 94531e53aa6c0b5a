package arm_test

import (
	"maps"
	"regexp"
	"testing"

	"github.com/coreunwind/coreunwind/arm"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// r0 = 0, r1 = 0x1000, r2 = 3, r3 = a wild pointer, r7 (Thumb's frame
// pointer) and r11 (ARM's).
var insnRegs = map[int]uint64{0: 0, 1: 0x1000, 2: 3, 3: 0xdead0000, 4: 0xfffffffc, 7: 0x7ffc0100, 11: 0x7ffc0200,
	arm.SP: 0x7ffc0000, arm.LR: 0x10401}

const cpsrT = 1 << 5

var thumbCases = []unwindtest.InsnCase{
	{Asm: "ldr r3, [r0, #24]", Mem: unwind.MemRead, MemAddr: 24, Regs: []int{0}},
	{Asm: "str r2, [r0, #24]", Mem: unwind.MemWrite, MemAddr: 24, Regs: []int{2, 0}},
	{Asm: "ldrb r2, [r1, #3]", Mem: unwind.MemRead, MemAddr: 0x1003, Regs: []int{1}},
	{Asm: "strh r2, [r1, #6]", Mem: unwind.MemWrite, MemAddr: 0x1006, Regs: []int{2, 1}},
	{Asm: "ldr r2, [r1, r2]", Mem: unwind.MemRead, MemAddr: 0x1003, Regs: []int{1, 2}},
	{Asm: "ldrsh r0, [r1, r2]", Mem: unwind.MemRead, MemAddr: 0x1003, Regs: []int{1, 2}},
	{Asm: "ldr r3, [sp, #8]", Mem: unwind.MemRead, MemAddr: 0x7ffc0008, Regs: []int{arm.SP}},
	{Asm: "str r0, [sp, #4]", Mem: unwind.MemWrite, MemAddr: 0x7ffc0004, Regs: []int{0, arm.SP}},
	{Asm: "ldr r3, [pc, #8]", Mem: unwind.MemRead, MemAddr: 0x10 + 4 + 8, Regs: []int{arm.PC}},
	{Asm: "push {r4, r7, lr}", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 - 12, Regs: []int{4, 7, arm.LR, arm.SP}},
	{Asm: "pop {r7, pc}", Mem: unwind.MemRead, MemAddr: 0x7ffc0000, Class: unwind.InsnReturn, Regs: []int{arm.SP}},
	{Asm: "stmia r1!, {r2, r3}", Mem: unwind.MemWrite, MemAddr: 0x1000, Regs: []int{1, 2, 3}},
	{Asm: "ldmia r1, {r1, r2}", Mem: unwind.MemRead, MemAddr: 0x1000, Regs: []int{1}},
	{Asm: "blx r3", Class: unwind.InsnCall, Regs: []int{3}},
	{Asm: "bx lr", Class: unwind.InsnReturn, Regs: []int{arm.LR}},
	{Asm: "bx r3", Class: unwind.InsnJump, Regs: []int{3}},
	{Asm: "udf #255", Class: unwind.InsnTrap},
	{Asm: "bkpt 0x0001", Class: unwind.InsnTrap},
	{Asm: "ldr.w r0, [r1, #4000]", Mem: unwind.MemRead, MemAddr: 0x1000 + 4000, Regs: []int{1}},
	{Asm: "str.w r2, [r7, #-4]", Mem: unwind.MemWrite, MemAddr: 0x7ffc00fc, Regs: []int{2, 7}},
	{Asm: "ldr r2, [r7, #-4]!", Mem: unwind.MemRead, MemAddr: 0x7ffc00fc, Regs: []int{7}},
	{Asm: "ldr r2, [r1], #4", Mem: unwind.MemRead, MemAddr: 0x1000, Regs: []int{1}},
	{Asm: "ldrsb.w r2, [r1, #1]", Mem: unwind.MemRead, MemAddr: 0x1001, Regs: []int{1}},
	{Asm: "ldrh.w r8, [r1, r2, lsl #1]", Mem: unwind.MemRead, MemAddr: 0x1006, Regs: []int{1, 2}},
	{Asm: "ldr.w r9, [pc, #-16]", Mem: unwind.MemRead, MemAddr: 0x3c + 4 - 16, Regs: []int{arm.PC}},
	{Asm: "strd r2, r3, [r0, #8]", Mem: unwind.MemWrite, MemAddr: 8, Regs: []int{2, 3, 0}},
	{Asm: "ldrd r2, r3, [sp], #8", Mem: unwind.MemRead, MemAddr: 0x7ffc0000, Regs: []int{arm.SP}},
	{Asm: "stmdb sp!, {r4, r5, r6, r7, r8, lr}", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 - 24, Regs: []int{arm.SP, 4, 5, 6, 7, 8, arm.LR}},
	{Asm: "ldmia.w sp!, {r4, r5, r6, r7, r8, pc}", Mem: unwind.MemRead, MemAddr: 0x7ffc0000, Class: unwind.InsnReturn, Regs: []int{arm.SP}},
	{Asm: "ldmia.w r1, {r2, r3, r4}", Mem: unwind.MemRead, MemAddr: 0x1000, Regs: []int{1}},
	{Asm: "stmdb r1!, {r2, r3}", Mem: unwind.MemWrite, MemAddr: 0x1000 - 8, Regs: []int{1, 2, 3}},
	{Asm: "bl .+8", Class: unwind.InsnCall},
	{Asm: "udf.w #1000", Class: unwind.InsnTrap},
}

var armCases = []unwindtest.InsnCase{
	{Asm: "ldr r3, [r0, #24]", Mem: unwind.MemRead, MemAddr: 24, Regs: []int{0}},
	{Asm: "str r2, [fp, #-8]", Mem: unwind.MemWrite, MemAddr: 0x7ffc01f8, Regs: []int{2, 11}},
	{Asm: "ldrb r2, [r1, r2, lsl #2]", Mem: unwind.MemRead, MemAddr: 0x100c, Regs: []int{1, 2}},
	{Asm: "ldr r2, [r1], #4", Mem: unwind.MemRead, MemAddr: 0x1000, Regs: []int{1}},
	{Asm: "ldr r0, [pc, #4]", Mem: unwind.MemRead, MemAddr: 0x10 + 8 + 4, Regs: []int{arm.PC}},
	{Asm: "push {r4, fp, lr}", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 - 12, Regs: []int{4, 11, arm.LR, arm.SP}},
	{Asm: "pop {r4, fp, pc}", Mem: unwind.MemRead, MemAddr: 0x7ffc0000, Class: unwind.InsnReturn, Regs: []int{arm.SP}},
	{Asm: "blx r3", Class: unwind.InsnCall, Regs: []int{3}},
	{Asm: "bx lr", Class: unwind.InsnReturn, Regs: []int{arm.LR}},
	{Asm: "udf #1000", Class: unwind.InsnTrap},
}

// TestDecodeInsn: Thumb (cpsr's T bit set) and ARM code against
// binutils' objdump.
func TestDecodeInsn(t *testing.T) {
	thumbRegs := maps.Clone(insnRegs)
	thumbRegs[arm.CPSR] = cpsrT
	armRegs := maps.Clone(insnRegs)
	armRegs[arm.CPSR] = 0
	for _, s := range []struct {
		name, header string
		regs         map[int]uint64
		cases        []unwindtest.InsnCase
	}{{"thumb", ".syntax unified\n.thumb", thumbRegs, thumbCases}, {"arm", ".syntax unified\n.arm", armRegs, armCases}} {
		t.Run(s.name, func(t *testing.T) {
			unwindtest.CheckDecodeInsn(t, unwindtest.InsnSuite{
				Arch: arm.Arch{}, Prefix: "arm-linux-gnueabihf-", Header: s.header, ASFlags: []string{"-march=armv7-a"},
				Regs: s.regs, Norm: normARM, Cases: s.cases, NeedTool: testenv.NeedTool,
			})
		})
	}
}

// FuzzDecodeInsn: any bytes decode or fail in either instruction set,
// never panic; a decoded Thumb instruction is 2 or 4 bytes, an ARM one
// 4.
func FuzzDecodeInsn(f *testing.F) {
	for _, s := range [][]byte{{0x83, 0x69}, {0x98, 0x47}, {0xd1, 0xf8, 0xa0, 0x0f}, {0x2d, 0xe9, 0xf0, 0x41}, {0xff, 0xde}, {0x18, 0x30, 0x90, 0xe5}} {
		f.Add(s, uint64(0x10000), true)
	}
	f.Fuzz(func(t *testing.T, code []byte, pc uint64, thumb bool) {
		var cpsr uint64
		if thumb {
			cpsr = cpsrT
		}
		in, err := arm.Arch{}.DecodeInsn(code, pc, func(r int) (uint64, bool) {
			if r == arm.CPSR {
				return cpsr, true
			}
			return uint64(r) * 0x1111, r%3 != 0
		})
		if err == nil && in.Len != 4 && (in.Len != 2 || !thumb && pc&1 == 0) {
			t.Fatalf("length %d (thumb %v)", in.Len, thumb)
		}
	})
}

var objdumpTarget = regexp.MustCompile(`^(blx?) ([0-9a-f]+)$`)

// normARM: unwindtest.NormInsn, and a branch target written as gdb
// writes it ("bl 0x60"), not as objdump does in an object ("bl 60").
func normARM(s string) string {
	return objdumpTarget.ReplaceAllString(unwindtest.NormInsn(s), "$1 0x$2")
}

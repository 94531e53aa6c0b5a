package x86_64_test

import (
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
	"github.com/coreunwind/coreunwind/x86_64"
)

// insnRegs are the register values the cases compute addresses with.
var insnRegs = map[int]uint64{x86_64.RAX: 0, x86_64.RBX: 0x1000, x86_64.RCX: 3, x86_64.RSP: 0x7ffc0000, x86_64.RBP: 0x7ffc0100, x86_64.RSI: 0x2000}

var insnCases = []unwindtest.InsnCase{
	{Asm: "mov 0x18(%rax),%eax", Mem: unwind.MemRead, MemAddr: 0x18, Regs: []int{x86_64.RAX}},
	{Asm: "movl $0x2a,0x18(%rax)", Mem: unwind.MemWrite, MemAddr: 0x18, Regs: []int{x86_64.RAX}},
	{Asm: "addq $1,0x8(%rbx,%rcx,8)", Mem: unwind.MemReadWrite, MemAddr: 0x1000 + 8 + 24, Regs: []int{x86_64.RBX, x86_64.RCX}},
	{Asm: "mov %edi,-0x204(%rbp)", Mem: unwind.MemWrite, MemAddr: 0x7ffc0100 - 0x204, Regs: []int{x86_64.RBP, x86_64.RDI}},
	{Asm: "cmpb $0,(%rsi)", Mem: unwind.MemRead, MemAddr: 0x2000, Regs: []int{x86_64.RSI}},
	{Asm: "push %rbp", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 - 8, Class: unwind.InsnPush, Regs: []int{x86_64.RBP, x86_64.RSP}},
	{Asm: "call 0x10", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 - 8, Class: unwind.InsnCall, Regs: []int{x86_64.RSP}},
	{Asm: "call *%rax", Mem: unwind.MemWrite, MemAddr: 0x7ffc0000 - 8, Class: unwind.InsnCall, Regs: []int{x86_64.RAX, x86_64.RSP}},
	{Asm: "call *0x10(%rbx)", Mem: unwind.MemRead, MemAddr: 0x1010, Class: unwind.InsnCall, Regs: []int{x86_64.RBX}},
	{Asm: "idivl -0x8(%rbp)", Mem: unwind.MemRead, MemAddr: 0x7ffc0100 - 8, Class: unwind.InsnDivide, Divisor: -1, Regs: []int{x86_64.RBP}},
	{Asm: "div %rcx", Class: unwind.InsnDivide, Divisor: x86_64.RCX, Regs: []int{x86_64.RCX}},
	{Asm: "ud2", Class: unwind.InsnTrap},
	{Asm: "int3", Class: unwind.InsnTrap},
	// A destination the instruction only writes is not among its
	// registers: their values are its inputs.
	{Asm: "lea 0x8(%rbx),%rdi", Mem: unwind.MemNone, Regs: []int{x86_64.RBX}},
	{Asm: "mov %eax,%ebp", Regs: []int{x86_64.RAX}},
	{Asm: "movzbl (%rsi),%ecx", Mem: unwind.MemRead, MemAddr: 0x2000, Regs: []int{x86_64.RSI}},
	{Asm: "add %eax,%ebp", Regs: []int{x86_64.RBP, x86_64.RAX}},
	// Absolute addresses, as gcc writes a constant-folded NULL
	// pointer's access: the operand 0x0 is printed, not dropped.
	{Asm: "movl $0,0x0", Mem: unwind.MemWrite, MemAddr: 0},
	{Asm: "mov 0x18,%eax", Mem: unwind.MemRead, MemAddr: 0x18},
	{Asm: "mov 0x0,%eax", Mem: unwind.MemRead, MemAddr: 0},
	{Asm: "ret", Mem: unwind.MemRead, MemAddr: 0x7ffc0000, Class: unwind.InsnReturn, Regs: []int{x86_64.RSP}},
	{Asm: "endbr64"},
}

// TestDecodeInsn: the cases against binutils' objdump, whose text is
// compared as it is but for white space.
func TestDecodeInsn(t *testing.T) {
	unwindtest.CheckDecodeInsn(t, unwindtest.InsnSuite{
		Arch: x86_64.Arch{}, ASFlags: []string{"--64"}, Regs: insnRegs,
		Norm: func(s string) string { return strings.Join(strings.Fields(s), " ") }, Cases: insnCases, NeedTool: testenv.NeedTool,
	})
}

package x86_64

import (
	"github.com/coreunwind/coreunwind/internal/x86insn"
	"github.com/coreunwind/coreunwind/unwind"
)

var _ unwind.InsnDecoder = Arch{}

// insnMode decodes 64-bit code; the general registers in hardware order
// (rax rcx rdx rbx rsp rbp rsi rdi r8..r15) in DWARF numbers.
var insnMode = x86insn.Mode{Bits: 64, PC: RIP, SP: RSP,
	Regs: []int{RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15}}

// MaxInsnLen is the architectural limit of an x86 instruction.
func (Arch) MaxInsnLen() int { return x86insn.MaxLen }

// DecodeInsn decodes the instruction at code (unwind.InsnDecoder).
func (Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	return insnMode.Decode(code, pc, reg)
}

// CanonicalAddr: x86-64 addresses have bits 63..47 all equal (4-level
// paging; the kernel raises #GP, reported as SIGSEGV with si_addr 0,
// for any other).
func (Arch) CanonicalAddr(addr uint64) bool {
	top := addr >> 47
	return top == 0 || top == 1<<17-1
}

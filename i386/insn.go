package i386

import (
	"github.com/coreunwind/coreunwind/internal/x86insn"
	"github.com/coreunwind/coreunwind/unwind"
)

var _ unwind.InsnDecoder = Arch{}

// insnMode decodes 32-bit code; i386's DWARF numbers are the hardware
// order.
var insnMode = x86insn.Mode{Bits: 32, PC: EIP, SP: ESP, Regs: []int{EAX, ECX, EDX, EBX, ESP, EBP, ESI, EDI}}

// MaxInsnLen is the architectural limit of an x86 instruction.
func (Arch) MaxInsnLen() int { return x86insn.MaxLen }

// DecodeInsn decodes the instruction at code (unwind.InsnDecoder).
func (Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	return insnMode.Decode(code, pc, reg)
}

// CanonicalAddr: every 32-bit address can be accessed.
func (Arch) CanonicalAddr(uint64) bool { return true }

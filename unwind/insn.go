package unwind

import "errors"

// ErrInsnNotCovered is wrapped by the errors of decoders that know only
// the forms a fault involves (arm's Thumb, ia64, pa64): the bytes may
// well be a valid instruction, so crash analysis does not call them
// illegal.
var ErrInsnNotCovered = errors.New("not among the forms decoded")

// InsnDecoder is implemented by arches that can decode the instruction a
// thread stopped at, for the report's crash analysis: x86_64 and i386
// with x86asm, aarch64, ppc64, s390x and riscv64 with golang.org/x/arch's
// decoders, arm with armasm (ARM code) and its own Thumb decoder, ia64
// and pa64 with their own decoders of the forms a fault involves.
// It is an optional extension of Arch, as TableArch is.
type InsnDecoder interface {
	// MaxInsnLen is the longest instruction's length in bytes: how many
	// bytes of code DecodeInsn needs at most.
	MaxInsnLen() int
	// DecodeInsn decodes the instruction at the start of code, which is
	// at address pc. reg gives frame 0's registers by number (the Arch's
	// numbering); the decoder uses it to compute the memory operand's
	// address. code may be shorter than MaxInsnLen at the end of a
	// mapping. It never panics on any bytes.
	DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (Insn, error)
	// CanonicalAddr reports whether the machine could access addr at all
	// (x86-64: bits 63..47 all equal). Arches without the notion say true.
	CanonicalAddr(addr uint64) bool
}

// InsnCodeAddr is implemented by decoders whose pc is not the address
// of the instruction's first byte (IA-64: a bundle address with the
// slot number in its low bits). InsnCodeAddr returns where the code
// DecodeInsn needs for pc starts; DecodeInsn still gets the pc.
type InsnCodeAddr interface {
	InsnCodeAddr(pc uint64) uint64
}

// DelaySlotArch is implemented by decoders of arches whose calls have a
// delay slot (MIPS): a return address is past the call and the
// instruction after it, so the call ends DelaySlot bytes before it.
type DelaySlotArch interface {
	DelaySlot() int
}

// TrapPCAfter is implemented by arches whose saved pc is past the
// instruction that raised SIGILL, SIGFPE or SIGTRAP (s390x: for those
// program checks the PSW holds the next instruction's address, and the
// instruction length the kernel used to find the culprit is not in the
// core). Crash analysis then decodes nothing at the pc for them.
type TrapPCAfter interface {
	TrapPCAfter() bool
}

// InsnClass says what an instruction does, as far as crash analysis cares.
type InsnClass uint8

const (
	InsnOther  InsnClass = iota
	InsnTrap             // always raises SIGILL or SIGTRAP: x86 ud2, arm64 udf/brk
	InsnDivide           // integer division: traps on a zero divisor or overflow
	InsnCall             // a call (direct or through a register or memory)
	InsnJump             // a jump through a register or memory
	InsnReturn
	InsnPush // stores to the stack below the stack pointer
	// InsnCondTrap raises SIGTRAP when its condition holds: Power's
	// tw/twi/td/tdi with a TO field that is not "always" (31).
	InsnCondTrap
)

// MemAccess says how an instruction uses its memory operand.
type MemAccess uint8

const (
	MemNone MemAccess = iota
	MemRead
	MemWrite
	MemReadWrite
)

var memAccessNames = [...]string{"none", "read", "write", "read_write"}

func (a MemAccess) String() string {
	if int(a) < len(memAccessNames) {
		return memAccessNames[a]
	}
	return "MemAccess(?)"
}

// Insn is one decoded instruction.
type Insn struct {
	Len   int
	Text  string // in the syntax gdb's x/i prints by default (AT&T on x86)
	Class InsnClass
	// Mem is how the instruction accesses memory through an explicit or
	// implicit (push, call: the stack) operand; MemAddr is that operand's
	// computed address, valid when HasMemAddr (every register it needs was
	// known). MemBase is the base register's number, -1 if none; MemDisp
	// the displacement.
	Mem        MemAccess
	MemAddr    uint64
	HasMemAddr bool
	MemBase    int
	MemIndex   int // -1 if none
	MemDisp    int64
	// Divisor is the register holding a division's divisor, -1 when it is
	// in memory (then at MemAddr) or the instruction divides nothing.
	Divisor int
	// DivisorBits is the divisor's width (8, 16, 32, 64).
	DivisorBits int
	// Regs are the registers the instruction reads (names as sources or
	// uses to address memory), by number, each once, in operand order:
	// what a load loads into is not among them.
	Regs []int
}

// AddReg adds register r to Regs unless it is there already.
func (in *Insn) AddReg(r int) {
	for _, x := range in.Regs {
		if x == r {
			return
		}
	}
	in.Regs = append(in.Regs, r)
}

package crashinfo

import (
	"fmt"
	"strings"

	"github.com/coreunwind/coreunwind/unwind"
)

// illegal explains SIGILL and SIGTRAP.
func (a *analysis) illegal() {
	switch {
	case a.insn != nil && a.insn.Class == unwind.InsnTrap:
		a.c.Kind = "trap_instruction"
		a.c.Summary = fmt.Sprintf("executed %s at %#x, an instruction that always raises %s (what __builtin_trap() compiles to)",
			a.insn.Text, a.pc, a.in.Signal.Name)
	case a.insn != nil && a.insn.Class == unwind.InsnCondTrap:
		a.c.Kind = "trap_instruction"
		a.c.Summary = fmt.Sprintf("executed %s at %#x, a conditional trap instruction whose comparison held%s",
			a.insn.Text, a.pc, a.insnRegs())
	case a.in.Signal.Name == "SIGILL" && a.undecodable && a.hasPC:
		a.c.Kind = "illegal_instruction"
		a.c.Summary = fmt.Sprintf("illegal instruction at %#x: %s", a.pc, a.c.Details[0])
	}
}

// arithmetic explains SIGFPE from an integer division: x86 raises the
// same #DE (reported FPE_INTDIV) for a zero divisor and for a quotient
// that does not fit, so the divisor's value tells them apart.
func (a *analysis) arithmetic() {
	in := a.insn
	if in == nil || in.Class != unwind.InsnDivide || in.DivisorBits == 0 {
		return
	}
	var div uint64
	where := ""
	switch {
	case in.Divisor >= 0:
		v, ok := a.reg(in.Divisor)
		if !ok {
			return
		}
		div, where = v, a.regName(in.Divisor)
	case in.HasMemAddr && in.Mem != unwind.MemNone:
		n := in.DivisorBits / 8
		if n < 1 || n > 8 {
			return
		}
		b := make([]byte, 8)
		if a.in.Mem.ReadMem(in.MemAddr, b[:n]) != nil {
			return
		}
		div, where = a.in.Mem.ByteOrder().Uint64(padTo8(b[:n], a.in.Mem)), fmt.Sprintf("memory at %#x", in.MemAddr)
	default:
		return
	}
	if in.DivisorBits < 64 {
		div &= 1<<in.DivisorBits - 1
	}
	if in.DivisorBits > 64 {
		return
	}
	switch {
	case div == 0:
		a.c.Kind = "division_by_zero"
		a.c.Summary = fmt.Sprintf("integer division by zero: %s with %s = 0", in.Text, where)
	case strings.HasPrefix(in.Text, "idiv") && (div == 1<<in.DivisorBits-1 || (in.DivisorBits == 64 && div == ^uint64(0))):
		a.c.Kind = "division_overflow"
		a.c.Summary = fmt.Sprintf("integer division overflow: %s with %s = -1 (the most negative dividend divided by -1)", in.Text, where)
	}
}

// padTo8 widens a little- or big-endian value of n bytes to 8 bytes.
func padTo8(b []byte, m Memory) []byte {
	out := make([]byte, 8)
	if m.ByteOrder().Uint16([]byte{1, 0}) == 1 { // little-endian
		copy(out, b)
	} else {
		copy(out[8-len(b):], b)
	}
	return out
}

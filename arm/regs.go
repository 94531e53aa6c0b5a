package arm

import "strconv"

// Register numbers: the DWARF numbering of the ARM ABI (AADWARF32) for
// the core registers, r0–r15 as 0–15 (r11 is the ARM-state frame
// pointer, r7 Thumb's, r13 sp, r14 lr, r15 pc). CPSR has no DWARF
// number; its slot 16 (the obsolete FPA f0's number, which no CFI of a
// hard-float target uses) carries the state bits, of which the unwinder
// needs T (Thumb). VFP registers (DWARF 256–287) are not kept: CFI rules
// for them are ignored, and no frame's address depends on them.
const (
	R0      = 0
	R7      = 7  // Thumb frame pointer
	R11     = 11 // ARM frame pointer
	SP      = 13
	LR      = 14
	PC      = 15
	CPSR    = 16
	NumRegs = 17
)

// cpsrThumb is CPSR's T bit: the thread executes Thumb code.
const cpsrThumb = 1 << 5

// RegName names register r as gdb does: "r0".."r12", "sp", "lr", "pc",
// "cpsr"; other numbers print as "r<N>".
func RegName(r uint64) string {
	switch r {
	case SP:
		return "sp"
	case LR:
		return "lr"
	case PC:
		return "pc"
	case CPSR:
		return "cpsr"
	}
	return "r" + strconv.FormatUint(r, 10)
}

// preserved reports whether a call preserves register r (AAPCS 5.1.1:
// r4–r11 and sp). lr is the return-address column: a CFI row without a
// rule for it describes code where the return address is still in lr.
// The CPSR slot carries over (its T bit is set from the return address).
func preserved(r int) bool {
	return r >= 4 && r <= LR || r == CPSR
}

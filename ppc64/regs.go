package ppc64

import "strconv"

// Register numbers: the DWARF numbering of the 64-bit PowerPC ELF ABI
// (ELFv2 §2.4, the same in ELFv1 and in gcc's DWARF_FRAME_REGNUM): r0–r31
// are 0–31 (r1 is the stack pointer, r2 the TOC pointer), f0–f31 are
// 32–63, the condition register is 64 (gdb's mapping), lr is 65 (every
// CIE gcc emits names it as the return-address column), ctr is 66,
// the condition register fields cr0–cr7 are 68–75 (gcc saves cr2–cr4 as
// those columns, each at the one 32-bit CR save word), xer is 76 and the
// vector registers vr0–vr31 are 77–108.
//
// PC (120) is past every DWARF number: no CFI names the next instruction
// address (nip); the caller's PC is derived from the lr column.
const (
	R0      = 0
	SP      = 1 // r1
	TOC     = 2 // r2
	R13     = 13
	F0      = 32
	CR      = 64
	LR      = 65
	CTR     = 66
	CR0     = 68
	XER     = 76
	VR0     = 77
	PC      = 120
	NumRegs = 121
)

// RegName names register r as gdb does: "r0".."r31", "f0".."f31", "cr",
// "lr", "ctr", "cr0".."cr7", "xer", "vr0".."vr31", "pc"; other numbers
// print as "reg<N>" ("r<N>" is already a general register's name).
func RegName(r uint64) string {
	switch {
	case r < F0:
		return "r" + strconv.FormatUint(r, 10)
	case r < CR:
		return "f" + strconv.FormatUint(r-F0, 10)
	case r == CR:
		return "cr"
	case r == LR:
		return "lr"
	case r == CTR:
		return "ctr"
	case r >= CR0 && r < CR0+8:
		return "cr" + strconv.FormatUint(r-CR0, 10)
	case r == XER:
		return "xer"
	case r >= VR0 && r < VR0+32:
		return "vr" + strconv.FormatUint(r-VR0, 10)
	case r == PC:
		return "pc"
	}
	return "reg" + strconv.FormatUint(r, 10)
}

// preserved reports whether a call preserves register r (ELFv2 §2.2.1.1,
// ELFv1 §3.2.2: r1, r2 within a module, r13 the thread pointer, r14–r31,
// f14–f31, cr2–cr4, vr20–vr31), so that a CFI row that says nothing about
// r means "same value". lr is preserved in that sense too: it is the
// return-address column, and a row without a rule for it describes code
// (a leaf, a prologue before the save) where the return address is still
// in the link register. r2 is corrected where a call crossed modules
// (toc.go).
func preserved(r int) bool {
	switch {
	case r == SP, r == TOC, r == R13, r >= 14 && r <= 31:
		return true
	case r >= F0+14 && r <= F0+31:
		return true
	case r >= CR0+2 && r <= CR0+4, r == LR:
		return true
	case r >= VR0+20 && r <= VR0+31:
		return true
	}
	return false
}

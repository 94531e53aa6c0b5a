package aarch64

import "strconv"

// Register numbers: the DWARF numbering of the AArch64 ABI (AADWARF64)
// where it has one. x0–x30 are 0–30 (x29 is the frame pointer, x30 the
// link register and every CIE's return-address column), sp is 31, and
// v0–v31 are 64–95 (only their low 64 bits, d0–d31, which is what a call
// preserves of v8–v15 and what CFI saves).
//
// The PC slot is 32: recent AADWARF64 releases give the program counter
// that number (gimli's AArch64::PC, libunwind's UNW_AARCH64_PC), and no
// CFI uses it (the return address lives in the x30 column, the caller's
// PC is derived from it). 33 and 34 are ELR_mode and RA_SIGN_STATE; no
// frame here holds them (the signing state is cfi.Row.WindowSave).
//
// PACMask (96, past every DWARF number) is not a register: it carries the
// thread's pointer-authentication instruction mask from NT_ARM_PAC_MASK
// from frame to frame, so that every return address can be stripped with
// it while the Arch itself stays stateless (pac.go).
const (
	X0      = 0
	X29     = 29 // frame pointer
	X30     = 30 // link register: the return address of a call
	SP      = 31
	PC      = 32
	V0      = 64
	PACMask = 96
	NumRegs = 97
)

// RegName names register r: "x0".."x30", "sp", "pc", "v0".."v31"; other
// numbers print as "r<N>", as readelf prints registers it has no name for.
func RegName(r uint64) string {
	switch {
	case r < X30:
		return "x" + strconv.FormatUint(r, 10)
	case r == X30:
		return "x30"
	case r == SP:
		return "sp"
	case r == PC:
		return "pc"
	case r >= V0 && r < V0+32:
		return "v" + strconv.FormatUint(r-V0, 10)
	case r == PACMask:
		return "pac_mask"
	}
	return "r" + strconv.FormatUint(r, 10)
}

// preserved reports whether a call preserves register r (AAPCS64 6.1.1:
// x19–x29, sp, and the low halves of v8–v15), so that a CFI row that says
// nothing about r means "same value". x30 is preserved too in that
// sense: it is the return-address column, and a row without a rule for
// it describes code (a leaf, or a prologue before the save) where the
// return address is still in the link register. The PAC mask slot is
// not a register and always carries over.
func preserved(r int) bool {
	switch {
	case r >= 19 && r <= X30, r == SP, r == PACMask:
		return true
	case r >= V0+8 && r <= V0+15:
		return true
	}
	return false
}

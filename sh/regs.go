package sh

import "strconv"

// Register numbers: the DWARF numbering gcc uses for SuperH
// (SH_DBX_REGISTER_NUMBER in gcc's sh.h), which libunwind's sh port
// shares: r0–r15 are 0–15 (r15 the stack pointer, r14 the frame
// pointer), 16 the pc, 17 pr (the return address: every CIE's
// return-address column), 18 gbr (glibc's thread pointer), 20 mach, 21
// macl, fr0–fr15 25–40.
const (
	FP      = 14
	SP      = 15
	PC      = 16
	PR      = 17
	GBR     = 18
	MACH    = 20
	MACL    = 21
	FR0     = 25
	NumRegs = FR0 + 16
)

// RegName names register r as gdb and objdump do: "r0".."r15", "pc",
// "pr", "gbr", "mach", "macl", "fr0".."fr15"; other numbers print as
// "r<N>", as readelf prints registers it has no name for.
func RegName(r uint64) string {
	switch {
	case r < 16:
		return "r" + strconv.FormatUint(r, 10)
	case r >= FR0 && r < FR0+16:
		return "fr" + strconv.FormatUint(r-FR0, 10)
	}
	switch r {
	case PC:
		return "pc"
	case PR:
		return "pr"
	case GBR:
		return "gbr"
	case MACH:
		return "mach"
	case MACL:
		return "macl"
	}
	return "r" + strconv.FormatUint(r, 10)
}

// preserved reports whether a call preserves register r (the SH Linux
// ABI: r8–r14, the stack pointer, fr12–fr15; gbr is the thread's, never
// changed by a call), so that a CFI row that says nothing about r means
// "same value". pr counts as preserved too: it is the return-address
// column, and a row without a rule for it describes code (a leaf, a
// prologue before "sts.l pr,@-r15") where the return address is still
// in pr.
func preserved(r int) bool {
	switch {
	case r >= 8 && r <= SP, r == PR, r == GBR:
		return true
	case r >= FR0+12 && r < FR0+16:
		return true
	}
	return false
}

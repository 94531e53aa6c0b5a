package ia64

import "fmt"

// Register numbers of a Frame. GRs first (r0..r127, stacked registers of
// the frame included), then branch registers, the frame registers, the
// application registers unwinding needs, and the preserved FRs (their
// 64-bit significand).
const (
	GR0      = 0
	SP       = 12 // r12, the memory stack pointer
	BR0      = 128
	IP       = 136 // bundle address + slot
	CFM      = 137 // current frame marker
	PSR      = 138
	PR       = 139 // the 64 predicates
	BSP      = 140 // beginning of the frame's registers in the backing store
	BSPSTORE = 141
	RNAT     = 142
	UNAT     = 143
	FPSR     = 144
	PFS      = 145
	LC       = 146
	EC       = 147
	RSC      = 148
	PRIUNAT  = 149 // primary UNaT collection (NaT bits of spilled r4..r7)
	FR2      = 150 // f2..f5 = 150..153
	FR16     = 154 // f16..f31 = 154..169

	NumRegs = 170
)

// FRReg returns the register number of preserved FR n (2..5, 16..31),
// -1 for others.
func FRReg(n int) int {
	switch {
	case n >= 2 && n <= 5:
		return FR2 + n - 2
	case n >= 16 && n <= 31:
		return FR16 + n - 16
	}
	return -1
}

var specialNames = map[int]string{
	IP: "ip", CFM: "cfm", PSR: "psr", PR: "pr", BSP: "bsp", BSPSTORE: "bspstore",
	RNAT: "rnat", UNAT: "unat", FPSR: "fpsr", PFS: "pfs", LC: "lc", EC: "ec",
	RSC: "rsc", PRIUNAT: "priunat",
}

// RegName names register r.
func RegName(r int) string {
	switch {
	case r >= 0 && r < 128:
		return fmt.Sprintf("r%d", r)
	case r >= BR0 && r < BR0+8:
		return fmt.Sprintf("b%d", r-BR0)
	case r >= FR2 && r < FR2+4:
		return fmt.Sprintf("f%d", r-FR2+2)
	case r >= FR16 && r < FR16+16:
		return fmt.Sprintf("f%d", r-FR16+16)
	}
	if n, ok := specialNames[r]; ok {
		return n
	}
	return fmt.Sprintf("reg%d", r)
}

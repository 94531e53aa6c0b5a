package mips

import "github.com/coreunwind/coreunwind/unwind"

// Register numbers: the DWARF numbering gcc uses for MIPS. 0–31 are the
// general registers ($31 is ra, every CIE's return-address column; $29
// sp; $30 s8/fp; $28 gp; $25 t9, which holds a PIC function's own
// address at its entry), 32–63 the floating-point registers.
//
// The PC slot is above the numbers gcc's CFI uses (64 and 65 are hi and
// lo, 66 its alternate return column for signal frames, then the DSP
// accumulators): a caller's pc is the return-address column's value.
const (
	Zero    = 0
	GP      = 28
	SP      = 29
	FP      = 30 // s8
	RA      = 31
	F0      = 32
	PC      = 72
	NumRegs = 73
)

// abiNames are the o32/n64 names of $0–$31, as gdb and objdump print them.
var abiNames = [32]string{
	"zero", "at", "v0", "v1", "a0", "a1", "a2", "a3",
	"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7",
	"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7",
	"t8", "t9", "k0", "k1", "gp", "sp", "s8", "ra",
}

// RegName names register r: the ABI names of $0–$31, "f0".."f31", "pc";
// other numbers print as "r<N>", as readelf prints registers it has no
// name for.
func RegName(r uint64) string { return regNames.Name(r) }

var regNames = unwind.RegNames{GPR: &abiNames, F0: F0, PC: PC}

// preserved reports whether a call preserves register r: s0–s7, gp (n64
// and PIC o32 code restore it), sp, s8, and ra as the return-address
// column (a row without a rule for ra describes code where the return
// address is still in ra); f20–f31 (n64's even and odd callee-saved
// floating-point registers; o32's even ones).
func preserved(r int) bool {
	switch {
	case r >= 16 && r <= 23, r == GP, r == SP, r == FP, r == RA:
		return true
	case r >= F0+20 && r < F0+32:
		return true
	}
	return false
}

package riscv64

import "github.com/coreunwind/coreunwind/unwind"

// Register numbers: the DWARF numbering of the RISC-V ELF psABI. x0–x31
// are 0–31 (x1 is ra, the return address and every CIE's return-address
// column; x2 is sp; x8 is s0/fp, the frame pointer) and f0–f31 are 32–63.
//
// The PC slot is 64: the psABI calls it the "alternate frame return
// column", which libgcc's signal-frame fallback for riscv uses for the
// interrupted pc, and libunwind's UNW_RISCV_PC has that number too. No
// CFI of ordinary code uses it: a caller's pc is derived from the ra
// column.
const (
	X0      = 0
	RA      = 1
	SP      = 2
	FP      = 8 // s0
	F0      = 32
	PC      = 64
	NumRegs = 65
)

// abiNames are the psABI's names of x0–x31, as gdb and objdump print them.
var abiNames = [32]string{
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2",
	"s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7",
	"s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
}

// RegName names register r: the ABI names of x0–x31 ("ra", "sp", "s0",
// ...), "f0".."f31", "pc"; other numbers print as "r<N>", as readelf
// prints registers it has no name for.
func RegName(r uint64) string { return regNames.Name(r) }

var regNames = unwind.RegNames{GPR: &abiNames, F0: F0, PC: PC}

// preserved reports whether a call preserves register r (psABI calling
// convention: sp, s0–s11 = x8, x9, x18–x27, and fs0–fs11 = f8, f9,
// f18–f27), so that a CFI row that says nothing about r means "same
// value". ra counts as preserved too: it is the return-address column,
// and a row without a rule for it describes code (a leaf, a prologue
// before the save) where the return address is still in ra.
func preserved(r int) bool {
	switch {
	case r == RA, r == SP, r == 8, r == 9, r >= 18 && r <= 27:
		return true
	case r == F0+8, r == F0+9, r >= F0+18 && r <= F0+27:
		return true
	}
	return false
}

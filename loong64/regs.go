package loong64

import "github.com/coreunwind/coreunwind/unwind"

// Register numbers: the DWARF numbering of the LoongArch ELF psABI.
// r0–r31 are 0–31 (r1 is ra, every CIE's return-address column; r2 tp;
// r3 sp; r22 fp/s9), f0–f31 are 32–63.
//
// The PC slot is 64, past the psABI's numbers (it has no DWARF number
// for the pc: a caller's pc is derived from the ra column).
const (
	Zero    = 0
	RA      = 1
	TP      = 2
	SP      = 3
	FP      = 22
	F0      = 32
	PC      = 64
	NumRegs = 65
)

// abiNames are the psABI's names of r0–r31, as gdb and objdump print them.
var abiNames = [32]string{
	"zero", "ra", "tp", "sp", "a0", "a1", "a2", "a3",
	"a4", "a5", "a6", "a7", "t0", "t1", "t2", "t3",
	"t4", "t5", "t6", "t7", "t8", "r21", "fp", "s0",
	"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8",
}

// RegName names register r: the ABI names of r0–r31, "f0".."f31", "pc";
// other numbers print as "r<N>", as readelf prints registers it has no
// name for.
func RegName(r uint64) string { return regNames.Name(r) }

var regNames = unwind.RegNames{GPR: &abiNames, F0: F0, PC: PC}

// preserved reports whether a call preserves register r (psABI: sp, fp
// and s0–s8 = r22–r31, fs0–fs7 = f24–f31), so that a CFI row that says
// nothing about r means "same value". ra counts as preserved too: it is
// the return-address column, and a row without a rule for it describes
// code (a leaf, a prologue before the save) where the return address is
// still in ra. tp never changes within a thread.
func preserved(r int) bool {
	switch {
	case r == RA, r == TP, r == SP, r >= 22 && r <= 31:
		return true
	case r >= F0+24 && r < F0+32:
		return true
	}
	return false
}

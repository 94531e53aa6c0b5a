package s390x

import "strconv"

// Register numbers: the DWARF numbering of the s390x ELF ABI supplement
// (what gcc's CFI and readelf use). r0–r15 are 0–15 (r14 holds the
// return address of a call and is every CIE's return-address column, r15
// is the stack pointer); 16–31 are the floating-point registers in the
// ABI's order f0, f2, f4, f6, f1, f3, f5, f7, f8, f10, f12, f14, f9, f11,
// f13, f15 (gcc saves r15 of a leaf that allocates a frame in f0: "r15
// in r16 (f0)"); 32–47 are the control registers cr0–cr15 (kernel only,
// never in a user frame); 48–63 the access registers a0–a15 (a0:a1 is
// the thread pointer); 64 and 65 the PSW mask and address. The PSW
// address is the frame's PC; no CFI writes it (the caller's PC comes
// from r14's column).
const (
	R0      = 0
	R14     = 14 // link register: the return address of a call
	R15     = 15 // stack pointer
	SP      = R15
	F0      = 16 // first of the 16 floating-point registers, in fprOrder
	A0      = 48
	PSWMask = 64
	PC      = 65 // PSW address
	NumRegs = 66
)

// fprOrder is the floating-point register held in DWARF number F0+i.
var fprOrder = [16]int{0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15}

// fprReg is the DWARF number of floating-point register fN.
func fprReg(n int) int {
	for i, f := range fprOrder {
		if f == n {
			return F0 + i
		}
	}
	return -1
}

// RegName names register r: "r0".."r15", "f0".."f15", "cr0".."cr15",
// "a0".."a15", "pswm", "pswa"; other numbers print as "r<N>", as readelf
// prints registers it has no name for.
func RegName(r uint64) string {
	switch {
	case r < F0:
		return "r" + strconv.FormatUint(r, 10)
	case r < F0+16:
		return "f" + strconv.Itoa(fprOrder[r-F0])
	case r < A0:
		return "cr" + strconv.FormatUint(r-32, 10)
	case r < PSWMask:
		return "a" + strconv.FormatUint(r-A0, 10)
	case r == PSWMask:
		return "pswm"
	case r == PC:
		return "pswa"
	}
	return "r" + strconv.FormatUint(r, 10)
}

// preserved reports whether a call preserves register r (s390x ELF ABI
// supplement, "Register usage": r6–r15, f8–f15, and the access registers,
// which hold the thread pointer), so that a CFI row that says nothing
// about r means "same value". r14 is the return-address column: a row
// without a rule for it describes code (a leaf, a prologue before the
// save) where the return address is still in r14. f8–f15 are DWARF
// 24–31, the last eight of fprOrder.
func preserved(r int) bool {
	switch {
	case r >= 6 && r <= R15:
		return true
	case r >= F0+8 && r < F0+16:
		return true
	case r >= A0 && r < A0+16:
		return true
	}
	return false
}

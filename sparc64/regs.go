package sparc64

import "strconv"

// Register numbers: the DWARF numbering gcc uses for SPARC. 0–31 are the
// integer registers of the current window: %g0–%g7, %o0–%o7, %l0–%l7,
// %i0–%i7 (%o6 is %sp, %o7 the address of the last call, %i6 %fp, %i7
// the caller's %o7); 32–63 are %f0–%f31.
//
// The PC slot is above every number gcc's CFI can name (it numbers up to
// 102, %gsr): SPARC has no DWARF number for the pc, since a caller's pc
// is derived from %o7 (return address column 15) as %o7 + 8, past the
// call and its delay slot.
const (
	G0      = 0
	G7      = 7 // the thread pointer
	O0      = 8
	SP      = 14 // %o6
	O7      = 15 // the return address column
	L0      = 16
	I0      = 24
	FP      = 30 // %i6
	I7      = 31
	F0      = 32
	PC      = 103
	NumRegs = 104
)

// retOffset is what a caller's pc is past the call that %o7 records:
// the call and its delay slot.
const retOffset = 8

// stackBias is the 64-bit ABI's stack bias: %sp and %fp point 2047
// bytes below the frame they describe (an odd value marks a 64-bit
// frame), and the register window of a frame is saved at %sp + 2047.
const stackBias = 2047

// windowSize is the save area a frame keeps for its window's %l0–%l7 and
// %i0–%i7, at %sp + stackBias.
const windowSize = 16 * 8

var windowNames = [4]string{"g", "o", "l", "i"}

// RegName names register r as gdb does: "g0".."i7" (with "sp" and "fp"
// for %o6 and %i6), "f0".."f31", "pc"; other numbers print as "r<N>", as
// readelf prints registers it has no name for.
func RegName(r uint64) string {
	switch {
	case r == SP:
		return "sp"
	case r == FP:
		return "fp"
	case r < 32:
		return windowNames[r/8] + strconv.FormatUint(r%8, 10)
	case r >= F0 && r < F0+32:
		return "f" + strconv.FormatUint(r-F0, 10)
	case r == PC:
		return "pc"
	}
	return "r" + strconv.FormatUint(r, 10)
}

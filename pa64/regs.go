package pa64

import "fmt"

// Register numbers: the 32 general registers, the 32 floating-point
// registers (64-bit each), then the instruction address (the front of the
// offset queue, privilege bits cleared) and the PSW.
const (
	R1  = 1
	RP  = 2 // return pointer
	R3  = 3 // frame pointer when a frame keeps one
	R19 = 19
	DP  = 27
	SP  = 30
	R31 = 31 // millicode and ble/be,l return link

	FR0     = 32
	PC      = 64
	PSW     = 65
	NumRegs = 66
)

// RegName names register r as gdb does.
func RegName(r int) string {
	switch {
	case r == RP:
		return "rp"
	case r == DP:
		return "dp"
	case r == SP:
		return "sp"
	case r >= 0 && r < 32:
		return fmt.Sprintf("r%d", r)
	case r >= FR0 && r < FR0+32:
		return fmt.Sprintf("fr%d", r-FR0)
	case r == PC:
		return "pc"
	case r == PSW:
		return "psw"
	}
	return fmt.Sprintf("reg%d", r)
}

// calleeSaved reports whether the caller can expect r unchanged across a
// call: r3..r18, dp and sp (the PA calling convention), and fr12..fr21.
func calleeSaved(r int) bool {
	return (r >= 3 && r <= 18) || r == DP || (r >= FR0+12 && r <= FR0+21)
}

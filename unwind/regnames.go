package unwind

import "strconv"

// RegNames names the registers of an arch numbered as the RISC-style
// psABIs number them in DWARF (riscv64, loongarch64, MIPS): the 32
// general registers by their ABI names, 32 floating-point registers from
// F0 as "f0".."f31", the frame's PC slot as "pc", and any other number
// as "r<N>", as readelf prints registers it has no name for.
type RegNames struct {
	GPR    *[32]string
	F0, PC uint64
}

// Name names register r.
func (n RegNames) Name(r uint64) string {
	switch {
	case r < 32:
		return n.GPR[r]
	case r >= n.F0 && r < n.F0+32:
		return "f" + strconv.FormatUint(r-n.F0, 10)
	case r == n.PC:
		return "pc"
	}
	return "r" + strconv.FormatUint(r, 10)
}

package elfx

import "testing"

// TestIsMappingSymbol: the mapping symbols of ARM, AArch64 and RISC-V
// (the RISC-V form with an ISA string is what riscv64-linux-gnu-gcc 12's
// assembler writes at the start of each object's code) are not
// functions; names that merely start with '$' are.
func TestIsMappingSymbol(t *testing.T) {
	for name, want := range map[string]bool{
		"$x": true, "$d": true, "$a": true, "$t": true, "$x.123": true, "$d.7": true,
		"$xrv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0_zifencei2p0_zmmul1p0": true,
		"$xyz": false, "$$divU": false, "main": false, "$": false, "$drv64": false,
	} {
		if got := isMappingSymbol(name); got != want {
			t.Errorf("isMappingSymbol(%q) = %v, want %v", name, got, want)
		}
	}
}

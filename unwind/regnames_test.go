package unwind

import "testing"

func TestRegNames(t *testing.T) {
	gpr := [32]string{0: "zero", 1: "ra", 31: "t6"}
	n := RegNames{GPR: &gpr, F0: 32, PC: 64}
	for r, want := range map[uint64]string{0: "zero", 1: "ra", 31: "t6", 32: "f0", 63: "f31", 64: "pc", 65: "r65", 100: "r100"} {
		if got := n.Name(r); got != want {
			t.Errorf("Name(%d) = %q, want %q", r, got, want)
		}
	}
}

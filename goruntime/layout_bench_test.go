package goruntime

import "testing"

// BenchmarkReadLayout is what NewReader reads of one executable's DWARF
// beside the generated table (the clocks and label types).
func BenchmarkReadLayout(b *testing.B) {
	bin := selfBinary(b)
	for b.Loop() {
		if _, _, _, err := readLayout(&bin); err != nil {
			b.Fatal(err)
		}
	}
}

package mapfault

import "testing"

// BenchmarkCopy8 is the cost Copy adds to an unwinder's 8-byte read of
// a mapped core (the plain copy beside it).
func BenchmarkCopy8(b *testing.B) {
	src, dst := make([]byte, 64), make([]byte, 8)
	b.Run("copy", func(b *testing.B) {
		for b.Loop() {
			copy(dst, src[8:])
		}
	})
	b.Run("Copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Copy(dst, src[8:])
		}
	})
}

package analyze

import "testing"

// BenchmarkAnalyzeUnwindOnly is a whole --unwind-only report: open the
// core and its modules, walk every thread, no symbols.
func BenchmarkAnalyzeUnwindOnly(b *testing.B) {
	core, exe := benchCore(b)
	for b.Loop() {
		if _, err := Analyze(core, Options{Executable: exe, UnwindOnly: true}); err != nil {
			b.Fatal(err)
		}
	}
}

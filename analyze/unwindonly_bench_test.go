package analyze

import "testing"

// BenchmarkAnalyzeUnwindOnly is a whole --unwind-only report as the
// command makes it for text (bench/run.sh's comparison with libunwind):
// open the core and the modules its frames are in, walk every thread,
// no symbols, registers of the crashing frames only.
func BenchmarkAnalyzeUnwindOnly(b *testing.B) {
	core, exe := benchCore(b)
	for b.Loop() {
		if _, err := Analyze(core, Options{Executable: exe, UnwindOnly: true, CrashRegistersOnly: true}); err != nil {
			b.Fatal(err)
		}
	}
}

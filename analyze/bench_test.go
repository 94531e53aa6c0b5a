package analyze

import (
	"os"
	"testing"

	_ "github.com/coreunwind/coreunwind/x86_64"
)

// BenchmarkAnalyzeCore measures a whole report (unwinding, names, lines,
// inlines) of the core named by $COREUNWIND_BENCH_CORE, with
// $COREUNWIND_BENCH_EXE as its executable; the e2e and bench/ scripts make
// such cores.
func BenchmarkAnalyzeCore(b *testing.B) {
	core := os.Getenv("COREUNWIND_BENCH_CORE")
	if core == "" {
		b.Skip("COREUNWIND_BENCH_CORE not set")
	}
	for b.Loop() {
		if _, err := Analyze(core, Options{Executable: os.Getenv("COREUNWIND_BENCH_EXE")}); err != nil {
			b.Fatal(err)
		}
	}
}

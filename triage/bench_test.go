package triage_test

import (
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/triage"
)

// BenchmarkRun triages the directory $COREUNWIND_TRIAGE_CORES (with
// binaries in $COREUNWIND_TRIAGE_BINARIES), e.g. the archive
// bench/triage.sh builds; reports cores/s.
func BenchmarkRun(b *testing.B) {
	dir := os.Getenv("COREUNWIND_TRIAGE_CORES")
	if dir == "" {
		b.Skip("set COREUNWIND_TRIAGE_CORES to a directory of cores (bench/triage.sh builds one)")
	}
	skip, _ := triage.NewSkipList(triage.DefaultPatterns())
	cfg := triage.Config{Binaries: []string{os.Getenv("COREUNWIND_TRIAGE_BINARIES")},
		Signer: triage.Signer{Skip: skip}, Analyze: analyze.Options{MaxFrames: 256}}
	// One cache for all iterations: the steady state of a long batch,
	// where every binary is already open.
	cfg.Analyze.Objects = elfx.NewCache()
	defer cfg.Analyze.Objects.Close()
	n := 0
	for b.Loop() {
		triage.Run([]string{dir}, cfg, func(r *triage.Result) { n++ })
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "cores/s")
}

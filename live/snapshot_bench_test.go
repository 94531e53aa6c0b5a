package live

import (
	"context"
	"testing"
)

// BenchmarkTake snapshots a process of 20 parked threads and 4 of the Go
// runtime, the size of bench/live.sh's: µs-stopped/op is how long the
// threads were stopped (Snapshot.Stopped), the figure issue 27 bounds
// at 1 ms; ns/op is the whole snapshot (listing, seizing, unseizing).
func BenchmarkTake(b *testing.B) {
	pid := startChildThreads(b, 20)
	var stopped float64
	for b.Loop() {
		s, err := Take(context.Background(), pid, Options{})
		if err != nil {
			b.Fatal(err)
		}
		stopped += float64(s.Stopped.Microseconds())
		s.Close()
	}
	b.ReportMetric(stopped/float64(b.N), "µs-stopped/op")
}

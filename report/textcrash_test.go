package report

import (
	"strings"
	"testing"
)

// A Go panic chain's summary prints a line per panic, aligned under the
// first; another summary's newline stays escaped on one line.
func TestWriteGoPanicSummary(t *testing.T) {
	for _, tc := range []struct {
		crash Crash
		want  string
	}{
		{Crash{Kind: KindGoPanic, Summary: "panic: first [recovered]\n\tpanic: again\x1b"},
			"crash:       panic: first [recovered]\n             panic: again\\x1b\n"},
		{Crash{Kind: "abort", Summary: "two\nlines"}, "crash:       two\\nlines\n"},
	} {
		var b strings.Builder
		if err := WriteText(&b, &Report{Crash: &tc.crash}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("text report:\n%s\nlacks:\n%s", b.String(), tc.want)
		}
	}
}

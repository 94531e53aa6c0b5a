package triage

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func testColumns(sig, path string) []column {
	return []column{
		{header: "BUCKET", cells: []string{"4cf93311b814"}},
		{header: "SIGNATURE", cells: []string{sig}, min: 24, cutLast: true},
		{header: "EXAMPLE CORE", cells: []string{path}, min: 16, cutStart: true, drop: 2},
		{header: "FIRST SEEN", cells: []string{"2026-11-27 06:56:55"}, drop: 1},
	}
}

// Cut cells keep a signature's start and a path's end; columns are left
// out, least needed first, before the signature is cut.
func TestWriteTableFits(t *testing.T) {
	sig := strings.Repeat("accounting::settlement::reconcile | ", 4) + "main"
	path := "/var/lib/crash-reports/nightly/settlement/core.settlement-batch.1234"
	for _, width := range []int{60, 80, 120, 200} {
		var b strings.Builder
		writeTable(&b, testColumns(sig, path), width)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("%d: %d lines", width, len(lines))
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("%d: line of %d: %q", width, n, l)
			}
		}
		row := lines[1]
		if !strings.Contains(row, "accounting::settlement::") || !strings.Contains(row, "…") {
			t.Errorf("%d: signature not cut at its end: %q", width, row)
		}
		kept := row[strings.LastIndex(row, " ")+1:] // the path cell is the last one here
		if strings.Contains(lines[0], "EXAMPLE CORE") && kept != path && !(strings.HasPrefix(kept, "…") && strings.HasSuffix(path, kept[len("…"):])) {
			t.Errorf("%d: path not cut at its start: %q", width, row)
		}
		if width < 120 && strings.Contains(lines[0], "FIRST SEEN") {
			t.Errorf("%d: FIRST SEEN kept in a narrow table: %q", width, lines[0])
		}
	}
	var b strings.Builder
	writeTable(&b, testColumns(sig, path), 0)
	if !strings.Contains(b.String(), sig) || !strings.Contains(b.String(), path) {
		t.Errorf("no width: cells cut:\n%s", b.String())
	}
}

// Any cells, any width: no panic, every cell within its column, the
// table no wider than asked once the uncuttable columns fit.
func FuzzWriteTable(f *testing.F) {
	f.Add("give_up", "testdata/cores/abort-dyn/core", 80)
	f.Add(strings.Repeat("x", 300), "\xff\xfe/\u4e16\u754c/core", 40)
	f.Add("", "", 0)
	f.Fuzz(func(t *testing.T, sig, path string, width int) {
		if width > 1000 || width < -1 || strings.ContainsAny(sig+path, "\n") {
			return
		}
		var b strings.Builder
		cols := testColumns(sig, path)
		writeTable(&b, cols, width)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("%d lines:\n%s", len(lines), b.String())
		}
		// BUCKET and the signature's minimum, with a gap, always fit 40.
		if width >= 40 {
			for _, l := range lines {
				if n := utf8.RuneCountInString(l); n > width {
					t.Fatalf("width %d: line of %d: %q", width, n, l)
				}
			}
		}
	})
}

package triage

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coreunwind/coreunwind/report"
)

// TestTextOutputEscapesInput: names from the cores (executables, core
// file names, symbols in signatures, error messages) with terminal
// escapes and bytes that are not UTF-8 print escaped in the table, so
// they can neither drive the terminal nor shift the columns.
func TestTextOutputEscapesInput(t *testing.T) {
	sig := "SIGSEGV"
	s := &Summary{
		CoresTotal: 3, CoresAnalyzed: 2, CoresFailed: 1,
		Buckets: []*Bucket{
			{ID: "0123456789ab", Count: 1, Signal: &sig, Executables: []string{"/bin/a\x1b[2J\xff\xfe"},
				Signature: "evil\x1b]0;x\x07 | main", ExampleCore: "core.\xff.1"},
			{ID: "ba9876543210", Count: 1, Signal: &sig, Executables: []string{"/bin/plain"},
				Signature: "f | main", ExampleCore: "core.plain"},
		},
		Failures: []Failure{{Core: "core.\x1b[31m", Error: "open: \u009b2J bad"}},
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, s); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !utf8.ValidString(out) {
		t.Errorf("not UTF-8:\n%q", out)
	}
	for _, r := range out {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			t.Fatalf("control character %U in the table:\n%q", r, out)
		}
	}
	for _, want := range []string{`/bin/a\x1b[2J\xff\xfe`, `evil\x1b]0;x\a | main`, `core.\xff.1`, `core.\x1b[31m: open: \u009b2J bad`} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %s:\n%s", want, out)
		}
	}
	// Every row's EXAMPLE CORE starts under its heading.
	lines := strings.Split(out, "\n")
	var col int
	for _, l := range lines {
		if i := strings.Index(l, "EXAMPLE CORE"); i >= 0 {
			col = utf8.RuneCountInString(l[:i])
			continue
		}
		for _, core := range []string{`core.\xff.1`, "core.plain"} {
			if i := strings.Index(l, core); i >= 0 && utf8.RuneCountInString(l[:i]) != col {
				t.Errorf("%s at column %d, its heading at %d:\n%s", core, utf8.RuneCountInString(l[:i]), col, out)
			}
		}
	}
}

// TestJSONLineExtraFieldsAreJSON: the bucket and partial fields added to
// a JSON line are JSON strings (Go's quoting, with \x1b and \xff, is not
// JSON) holding the exact text.
func TestJSONLineExtraFieldsAreJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSONLine(&buf, &report.Report{}, "b\x1b[2J", "cut \xff here"); err != nil {
		t.Fatal(err)
	}
	var got struct{ Bucket, Partial string }
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v:\n%s", err, buf.String())
	}
	if got.Bucket != "b\x1b[2J" || got.Partial != "cut \ufffd here" {
		t.Errorf("bucket %q, partial %q", got.Bucket, got.Partial)
	}
}

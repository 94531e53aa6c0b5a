package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/report"
)

// viaReflection is the JSON encoding/json writes for r: the reference the
// direct encoder must reproduce byte for byte.
func viaReflection(t *testing.T, r *report.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sameAsReflection(t *testing.T, name string, r *report.Report) {
	t.Helper()
	var got bytes.Buffer
	if err := report.WriteJSON(&got, r); err != nil { // also fills empty lists
		t.Fatal(err)
	}
	want := viaReflection(t, r)
	if !bytes.Equal(got.Bytes(), want) {
		i := 0
		for i < len(want) && i < got.Len() && want[i] == got.Bytes()[i] {
			i++
		}
		lo := max(0, i-80)
		t.Errorf("%s: output differs from encoding/json at byte %d:\n got ...%s\nwant ...%s", name,
			i, got.Bytes()[lo:min(got.Len(), i+80)], want[lo:min(len(want), i+80)])
	}
}

// The shipped cores' reports, as the command writes them.
func TestWriteJSONMatchesEncodingJSON(t *testing.T) {
	for _, c := range []struct{ dir, exe string }{
		{"segv-static", "segv"}, {"abort-dyn", "abort"}, {"threads-dyn", "threads"},
	} {
		dir := filepath.Join("..", "testdata", "cores", c.dir)
		r, err := analyze.Analyze(filepath.Join(dir, "core"), analyze.Options{Executable: filepath.Join(dir, c.exe)})
		if err != nil {
			t.Fatal(err)
		}
		sameAsReflection(t, c.dir, r)
	}
}

// Every optional field absent, and strings encoding/json escapes.
func TestWriteJSONEscapesAsEncodingJSON(t *testing.T) {
	odd := "quote\" back\\ <html> & tab\t nl\n ctl\x01\x1f del\x7f line\u2028para\u2029 bad\xff\xfe é 世界 \U0001F600"
	r := &report.Report{
		Core:    report.Core{Path: odd},
		Modules: []report.Module{{Path: odd, Start: 0x1000, End: 0xffffffffffffffff}},
		Threads: []report.Thread{
			{TID: 1, Frames: []report.Frame{{Trust: "context"}, {Index: 1, PC: 1, Function: report.Ptr(odd), Line: report.Ptr(0), Inlined: true}}},
			{TID: 2, Error: report.Ptr(odd)},
		},
		Warnings: []string{odd, ""},
	}
	sameAsReflection(t, "odd strings", r)
	sameAsReflection(t, "empty", &report.Report{})
}

// A report of thousands of frames goes out in pieces as it is encoded:
// the same bytes as encoding/json's, and a writer's error comes back.
func TestWriteJSONLargeReport(t *testing.T) {
	dir := filepath.Join("..", "testdata", "cores", "threads-dyn")
	r, err := analyze.Analyze(filepath.Join(dir, "core"), analyze.Options{Executable: filepath.Join(dir, "threads")})
	if err != nil {
		t.Fatal(err)
	}
	th := &r.Threads[0]
	for len(th.Frames) < 3000 {
		th.Frames = append(th.Frames, th.Frames...)
	}
	sameAsReflection(t, "3000 frames", r)
	w := &failingWriter{left: 100 << 10}
	if err := report.WriteJSON(w, r); err != errWriteFailed {
		t.Errorf("WriteJSON to a writer that fails after 100 KiB: %v", err)
	}
}

var errWriteFailed = errors.New("disk full")

// failingWriter accepts left bytes, then fails.
type failingWriter struct{ left int }

func (w *failingWriter) Write(b []byte) (int, error) {
	if len(b) > w.left {
		return 0, errWriteFailed
	}
	w.left -= len(b)
	return len(b), nil
}

package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/report"
)

// viaReflection is the JSON encoding/json writes for r: the reference the
// direct encoder must reproduce byte for byte (HTML escaping off, as the
// command's JSON has it).
func viaReflection(t *testing.T, r *report.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
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

// A Go program's goroutines: one running on a thread, one parked with
// frames, one whose frames could not be walked.
func TestWriteJSONGoroutinesMatchEncodingJSON(t *testing.T) {
	fn, file, line := "main.worker", "/src/main.go", 12
	r := &report.Report{Goroutines: []report.Goroutine{
		{ID: 1, State: "running", Crashed: true, TID: report.Ptr(42),
			Frames: []report.Frame{{Index: 0, PC: 0x401000, ExactPC: true, Trust: "context"}}},
		{ID: 1 << 40, State: "chan receive",
			Frames: []report.Frame{{Index: 0, PC: 0x402000, Trust: "context", Function: &fn, File: &file, Line: &line}}},
		{ID: 9, State: "\"odd\" <state>", Error: report.Ptr("stack unreadable")},
		// What a goroutine has beyond its stack.
		{ID: 10, State: "select", WaitMinutes: report.Ptr(int64(3)), LockedToThread: true, LockedTID: report.Ptr(77),
			Labels: map[string]string{"zeta": "1", "alpha": "\"quoted\" <k>", "\u00e9": ""},
			CreatedBy: &report.GoCreator{Function: "main.main", Goroutine: report.Ptr(uint64(1)), PC: 0x48993d,
				FunctionOffset: report.Ptr(report.Hex(0xfd)), File: &file, Line: &line},
			Panics: []report.GoPanic{{Value: "first", Type: "string", Recovered: true}, {Value: "boom", Type: "*errors.errorString", Goexit: true}}},
		{ID: 11, State: "runnable", Labels: map[string]string{}, Panics: []report.GoPanic{}, CreatedBy: &report.GoCreator{Function: "f"}},
	}}
	sameAsReflection(t, "goroutines", r)
	sameAsReflection(t, "no goroutines", &report.Report{})
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

// A re-raised fault's crash and a sent signal's.
func TestWriteJSONCrashReraisedAndSent(t *testing.T) {
	tkill, maperr := "SI_TKILL", "SEGV_MAPERR"
	r := &report.Report{Crash: &report.Crash{Summary: "read through a NULL pointer", Kind: "null_pointer",
		Reraised: &report.Reraised{
			Signal:      report.Signal{Number: 11, Name: "SIGSEGV", Code: -6, CodeName: &tkill},
			Fault:       report.Signal{Number: 11, Name: "SIGSEGV", Code: 1, CodeName: &maperr, Address: report.Ptr(report.Hex(0))},
			SignalFrame: 3, FaultFrame: 4,
		}}}
	sameAsReflection(t, "reraised", r)
	sameAsReflection(t, "sent", &report.Report{Crash: &report.Crash{Kind: "sent_signal", Sender: &report.Sender{PID: 12, UID: 1000}}})
}

// deepReport has a thread of 20,000 frames: the encoder hands its output
// to the writer in many pieces.
func deepReport() *report.Report {
	th := report.Thread{TID: 1, Crashed: true}
	for i := range 20_000 {
		th.Frames = append(th.Frames, report.Frame{Index: i, PC: report.Hex(0x401000 + i%2*0x20), Trust: "cfi",
			SP: report.Ptr(report.Hex(0x7ffc0000 + 64*i)), Function: report.Ptr("a"), Line: report.Ptr(17)})
	}
	return &report.Report{Schema: report.Schema, Threads: []report.Thread{th}}
}

func TestWriteJSONDeepStackMatchesEncodingJSON(t *testing.T) {
	sameAsReflection(t, "deep", deepReport())
}

// TestWriteJSONBufferMadeOnce: a report streamed in many pieces is
// written through one buffer made once at its working size, not grown
// from a small guess (each smaller copy was left behind in fresh pages:
// 100 of a warm Go report's page faults).
func TestWriteJSONBufferMadeOnce(t *testing.T) {
	r := deepReport()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := report.WriteJSON(io.Discard, r); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 100<<10 {
		t.Errorf("WriteJSON allocated %d bytes; its buffer is 80 KiB", got)
	}
}

type failingWriter struct{ writes int }

func (w *failingWriter) Write(b []byte) (int, error) {
	w.writes++
	return 0, errors.New("disk full")
}

// A write error while streaming is returned, and nothing more is written.
func TestWriteJSONStreamingError(t *testing.T) {
	w := &failingWriter{}
	if err := report.WriteJSON(w, deepReport()); err == nil || w.writes != 1 {
		t.Errorf("err %v after %d writes; want the writer's error after its first write", err, w.writes)
	}
}

// A minidump's Crashpad annotations: the process's, a module's list and
// simple ones, with strings that need escaping.
func TestWriteJSONAnnotations(t *testing.T) {
	mod := "/usr/lib/libplugin.so"
	r := &report.Report{Core: report.Core{Format: "minidump", Annotations: []report.Annotation{
		{Key: report.Ptr("ver"), Value: "1.2.3"},
		{Module: &mod, Value: "list \"entry\"\n"},
		{Module: &mod, Key: report.Ptr("<plugin>"), Value: "on"},
	}}}
	sameAsReflection(t, "annotations", r)
	var text bytes.Buffer
	if err := report.WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	want := "annotations:\n  ver: 1.2.3\n  libplugin.so: list \"entry\"\\n\n  libplugin.so: <plugin>: on\n"
	if !bytes.Contains(text.Bytes(), []byte(want)) {
		t.Errorf("text report has no\n%s\nin\n%s", want, text.String())
	}
}

package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
	"github.com/google/pprof/profile"
)

// pprofProg crashes in an inlined function, reached through a tail call
// (via jumps to crash_here), with two more threads waiting elsewhere:
// samples with inlined lines, a tail-call frame, shared and distinct
// frames.
const pprofProg = `
#include <pthread.h>
#include <unistd.h>
static inline __attribute__((always_inline)) int inl(int *p) { return *p + 1; }
__attribute__((noinline)) int crash_here(int *p) { return inl(p) * 2; }
__attribute__((noinline)) int via(int *p) { return crash_here(p); }
__attribute__((noinline)) void *worker(void *a) { pause(); return a; }
int main(int argc, char **argv) {
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_create(&t, 0, worker, 0);
	usleep(100000);
	return via(argc > 5 ? &argc : 0) + 1;
}
`

// crashReports crashes pprofProg n times (PIE: a new layout each time)
// and returns the reports. arch is "" for the host (x86_64) or "i386"
// (built with the i686 cross compiler, run natively).
func crashReports(t *testing.T, n int, arch string) []*report.Report {
	t.Helper()
	var reps []*report.Report
	for i := 0; i < n; i++ {
		dir := t.TempDir()
		flags := []string{"-g", "-O2", "-fPIE", "-pie"}
		var exe string
		if arch == "i386" {
			exe = testenv.BuildCross(t, testenv.I386, dir, "prog", pprofProg, append(flags, testenv.I386Dynamic...)...)
		} else {
			exe = testenv.BuildC(t, dir, "prog", pprofProg, flags...)
		}
		core, _ := testenv.Crash(t, exe)
		rep, err := analyze.Analyze(core, analyze.Options{Executable: exe})
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	return reps
}

// rawSample is one sample as `go tool pprof -raw` prints it.
type rawSample struct {
	labels map[string]string
	locs   []uint64 // location ids, leaf first
}

// rawLocation is one location of `go tool pprof -raw`: its address and
// function names (innermost inlined first) with their lines.
type rawLocation struct {
	addr  uint64
	lines []string // "func file:line"
}

var (
	rawSampleRE = regexp.MustCompile(`^\s+1:((?:\s+\d+)+)\s*$`)
	rawLabelRE  = regexp.MustCompile(`(\w+):\[([^\]]*)\]`)
	rawLocRE    = regexp.MustCompile(`^\s*(\d+): 0x([0-9a-f]+) M=\d+ (.*)$`)
	rawLineRE   = regexp.MustCompile(`^\s+(\S.*?) (\S*?):(-?\d+)(?::\d+)? s=\d+$`)
)

// parseRaw reads `go tool pprof -raw` output: "Samples:" rows (value and
// location ids, then a line of labels), then "Locations" rows (id,
// address, mapping, first line, further inlined lines).
func parseRaw(t *testing.T, out string) ([]rawSample, map[uint64]*rawLocation) {
	t.Helper()
	var samples []rawSample
	locs := map[uint64]*rawLocation{}
	section := ""
	var cur *rawLocation
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "Samples:"), strings.HasPrefix(line, "Locations"), strings.HasPrefix(line, "Mappings"):
			section = strings.Fields(line)[0]
			continue
		}
		switch section {
		case "Samples:":
			if m := rawSampleRE.FindStringSubmatch(line); m != nil {
				s := rawSample{labels: map[string]string{}}
				for _, f := range strings.Fields(m[1]) {
					id, _ := strconv.ParseUint(f, 10, 64)
					s.locs = append(s.locs, id)
				}
				samples = append(samples, s)
			} else if len(samples) > 0 && strings.Contains(line, ":[") {
				for _, m := range rawLabelRE.FindAllStringSubmatch(line, -1) {
					samples[len(samples)-1].labels[m[1]] = m[2]
				}
			}
		case "Locations":
			if m := rawLocRE.FindStringSubmatch(line); m != nil {
				id, _ := strconv.ParseUint(m[1], 10, 64)
				addr, _ := strconv.ParseUint(m[2], 16, 64)
				cur = &rawLocation{addr: addr}
				locs[id] = cur
				if lm := rawLineRE.FindStringSubmatch(" " + m[3]); lm != nil {
					cur.lines = append(cur.lines, lm[1]+" "+lm[2]+":"+lm[3])
				}
			} else if lm := rawLineRE.FindStringSubmatch(line); lm != nil && cur != nil {
				cur.lines = append(cur.lines, lm[1]+" "+lm[2]+":"+lm[3])
			}
		}
	}
	return samples, locs
}

// wantLocations groups a report thread's frames into physical frames:
// lookup address and "func file:line" lines, innermost first.
func wantLocations(th *report.Thread) []rawLocation {
	var out []rawLocation
	var cur rawLocation
	for _, f := range th.Frames {
		cur.addr = uint64(f.PC)
		if f.Trust != "context" {
			cur.addr--
		}
		if f.Function != nil {
			line := 0
			if f.Line != nil {
				line = *f.Line
			}
			file := ""
			if f.File != nil {
				file = *f.File
			}
			cur.lines = append(cur.lines, fmt.Sprintf("%s %s:%d", *f.Function, file, line))
		}
		if !f.Inlined {
			out = append(out, cur)
			cur = rawLocation{}
		}
	}
	return out
}

// TestPprofMatchesReports writes the profile of three cores of one
// program and checks with `go tool pprof -raw` that it holds exactly the
// reports' threads, each with the report's frames, addresses, inlined
// lines and labels.
func TestPprofMatchesReports(t *testing.T) {
	checkPprofMatches(t, crashReports(t, 3, ""))
}

// TestPprofI386: the same for an i386 core: 32-bit addresses, mappings
// and the vDSO frames of threads blocked in system calls.
func TestPprofI386(t *testing.T) {
	reps := crashReports(t, 2, "i386") // two cores: samples carry the core label
	if reps[0].Core.Arch != "i386" {
		t.Fatalf("core arch %q, want i386", reps[0].Core.Arch)
	}
	checkPprofMatches(t, reps)
}

// checkPprofMatches writes the reports' profile and compares what `go
// tool pprof -raw` reads back with the reports.
func checkPprofMatches(t *testing.T, reps []*report.Report) {
	t.Helper()
	goTool := testenv.NeedTool(t, "go")
	var buf bytes.Buffer
	if err := report.WritePprof(&buf, reps); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "threads.pb.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goTool, "tool", "pprof", "-raw", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -raw: %v\n%s", err, out)
	}
	samples, locs := parseRaw(t, string(out))
	// A tail-call frame is a location of its own, at its call site.
	tail := 0
	for _, r := range reps {
		for _, th := range r.Threads {
			for _, f := range th.Frames {
				if f.Trust == report.TrustTailCall {
					tail++
				}
			}
		}
	}
	if tail == 0 {
		t.Errorf("no tail-call frame in the reports: via's jump to crash_here is not covered")
	}

	type key struct {
		core string
		tid  string
	}
	got := map[key]rawSample{}
	for _, s := range samples {
		// Numeric labels print with their unit: "tid:[1234 id]".
		if f := strings.Fields(s.labels["tid"]); len(f) != 2 || f[1] != "id" {
			t.Errorf("tid label %q, want a number with unit id", s.labels["tid"])
		} else {
			got[key{s.labels["core"], f[0]}] = s
		}
	}
	nThreads := 0
	for _, r := range reps {
		for i := range r.Threads {
			th := &r.Threads[i]
			nThreads++
			s, ok := got[key{r.Core.Path, strconv.Itoa(th.TID)}]
			if !ok {
				t.Errorf("%s thread %d: no sample", r.Core.Path, th.TID)
				continue
			}
			if c := s.labels["crashed"]; c != strconv.FormatBool(th.Crashed) {
				t.Errorf("%s thread %d: crashed label %q", r.Core.Path, th.TID, c)
			}
			if th.Crashed && s.labels["signal"] != r.Core.Signal.Name {
				t.Errorf("%s thread %d: signal label %q, report %s", r.Core.Path, th.TID, s.labels["signal"], r.Core.Signal.Name)
			}
			want := wantLocations(th)
			if len(s.locs) != len(want) {
				t.Errorf("%s thread %d: %d locations, report has %d physical frames", r.Core.Path, th.TID, len(s.locs), len(want))
				continue
			}
			for j, id := range s.locs {
				l := locs[id]
				if l == nil || l.addr != want[j].addr || !slices.Equal(l.lines, want[j].lines) {
					t.Errorf("%s thread %d frame %d: pprof %+v, report %+v", r.Core.Path, th.TID, j, l, want[j])
				}
			}
		}
	}
	if len(samples) != nThreads {
		t.Errorf("%d samples, the reports have %d threads\n%s", len(samples), nThreads, out)
	}
	// The inlined call is a line of the crashing location, not a frame.
	crashed := wantLocations(&reps[0].Threads[0])
	if len(crashed[0].lines) != 2 || !strings.HasPrefix(crashed[0].lines[0], "inl ") {
		t.Errorf("crashing location lines %q, want inl inlined into crash_here", crashed[0].lines)
	}
}

// TestPprofTraces: `go tool pprof -traces` opens the profile and prints
// each thread's stack with the report's function names.
func TestPprofTraces(t *testing.T) {
	goTool := testenv.NeedTool(t, "go")
	reps := crashReports(t, 1, "")
	path := filepath.Join(t.TempDir(), "threads.pb.gz")
	var buf bytes.Buffer
	if err := report.WritePprof(&buf, reps); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, buf.Bytes(), 0o644)
	out, err := exec.Command(goTool, "tool", "pprof", "-traces", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -traces: %v\n%s", err, out)
	}
	// Traces are separated by dashed lines; each has the stack's
	// function names, one per line after the value column.
	var traces [][]string
	for _, block := range strings.Split(string(out), "-----------+")[1:] {
		var fns []string
		for _, line := range strings.Split(block, "\n")[1:] {
			f := strings.Fields(line)
			if len(f) == 0 || strings.HasSuffix(f[0], ":") {
				continue
			}
			if len(f) >= 2 && f[0] == "1" {
				f = f[1:]
			}
			fns = append(fns, f[0])
		}
		if len(fns) > 0 {
			traces = append(traces, fns)
		}
	}
	var want [][]string
	for _, th := range reps[0].Threads {
		var fns []string
		for _, f := range th.Frames {
			if f.Function != nil {
				fns = append(fns, *f.Function)
			}
		}
		want = append(want, fns)
	}
	sortStacks := func(s [][]string) {
		slices.SortFunc(s, func(a, b []string) int { return strings.Compare(strings.Join(a, " "), strings.Join(b, " ")) })
	}
	sortStacks(traces)
	sortStacks(want)
	if fmt.Sprint(traces) != fmt.Sprint(want) {
		t.Errorf("pprof -traces stacks:\n%q\nreport stacks:\n%q\n%s", traces, want, out)
	}
}

// TestProfileBuilderValid: pprof's own parser (which checks the profile
// with CheckValid) reads the builder's output for an empty report, a
// thread without frames and frames without symbols, and finds its
// samples, labels and locations.
func TestProfileBuilderValid(t *testing.T) {
	b := report.NewProfileBuilder(report.SampleCrashes)
	b.Add(&report.Report{}, report.AddOptions{})
	b.Add(&report.Report{
		Modules: []report.Module{{Path: "/bin/x", Start: 0x1000, End: 0x2000}},
		Threads: []report.Thread{
			{TID: 1, Crashed: true},
			{TID: 2, Frames: []report.Frame{{PC: 0x1100, Trust: "context"}, {PC: 0x9999, Trust: "cfi"}, {PC: 0, Trust: "scan"}}},
		},
	}, report.AddOptions{Labels: map[string]string{"bucket": "abc"}})
	var buf bytes.Buffer
	if err := b.Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Sample) != 2 || len(q.Sample[1].Location) != 3 || q.Sample[1].Location[1].Address != 0x9998 {
		t.Errorf("round trip: %v", q)
	}
	if s := q.Sample[1]; s.Label["bucket"][0] != "abc" || s.Label["crashed"][0] != "false" ||
		s.NumLabel["tid"][0] != 2 || s.NumUnit["tid"][0] != "id" || len(s.Value) != 1 || s.Value[0] != 1 {
		t.Errorf("second sample's labels and value: %v", s)
	}
	if m := q.Sample[1].Location[0].Mapping; m == nil || m.File != "/bin/x" || m.Start != 0x1000 || m.Limit != 0x2000 || !m.HasFunctions {
		t.Errorf("first frame's mapping: %+v", m)
	}
	if q.Sample[1].Location[1].Mapping != nil || q.Sample[1].Location[0].Address != 0x10ff {
		t.Errorf("frames outside every module have no mapping; the call instruction for a return address: %v %v", q.Sample[1].Location[0], q.Sample[1].Location[1])
	}
	if len(q.SampleType) != 1 || q.SampleType[0].Type != report.SampleCrashes || q.SampleType[0].Unit != "count" ||
		q.PeriodType == nil || q.PeriodType.Type != report.SampleCrashes || q.Period != 1 || q.DefaultSampleType != report.SampleCrashes {
		t.Errorf("sample and period types: %v %v %d %q", q.SampleType, q.PeriodType, q.Period, q.DefaultSampleType)
	}
}

// TestPprofStringsValidUTF8: names from a hostile core or binary may hold
// bytes that are not UTF-8. proto3 strings must be UTF-8 (strict decoders
// reject the profile otherwise), so every string in the profile is valid
// and reads as the JSON report reads it: each bad byte U+FFFD.
func TestPprofStringsValidUTF8(t *testing.T) {
	bad := func(s string) *string { return &s }
	rep := &report.Report{
		Core:    report.Core{Path: "/cores/core.\xff1"},
		Modules: []report.Module{{Path: "/lib/li\xc3b.so", Start: 0x1000, End: 0x2000, BuildID: bad("ab")}},
		Threads: []report.Thread{{TID: 1, Crashed: true, Name: bad("w\xe2\x82orker"), Frames: []report.Frame{
			{PC: 0x1100, Trust: "context", Function: bad("f\xff\xfeo"), File: bad("/src/\x80.c"), Line: new(int), Module: bad("/lib/li\xc3b.so")},
		}}},
	}
	var buf bytes.Buffer
	if err := report.WritePprof(&buf, []*report.Report{rep, rep}); err != nil { // two: a "core" label
		t.Fatal(err)
	}
	q, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var jbuf bytes.Buffer
	if err := report.WriteJSON(&jbuf, rep); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Core    struct{ Path string }
		Modules []struct{ Path string }
		Threads []struct {
			Frames []struct{ Function, File string }
		}
	}
	if err := json.Unmarshal(jbuf.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	var strs []string
	for _, f := range q.Function {
		strs = append(strs, f.Name, f.SystemName, f.Filename)
	}
	for _, m := range q.Mapping {
		strs = append(strs, m.File, m.BuildID)
	}
	for _, s := range q.Sample {
		for k, vs := range s.Label {
			strs = append(strs, k)
			strs = append(strs, vs...)
		}
	}
	for _, s := range strs {
		if !utf8.ValidString(s) {
			t.Errorf("profile string %q is not UTF-8", s)
		}
	}
	if len(q.Function) != 1 || q.Function[0].Name != j.Threads[0].Frames[0].Function || q.Function[0].Filename != j.Threads[0].Frames[0].File {
		t.Errorf("functions %+v, JSON frame %+v: want the same names", q.Function, j.Threads[0].Frames[0])
	}
	if len(q.Mapping) != 1 || q.Mapping[0].File != j.Modules[0].Path {
		t.Errorf("mapping %+v, JSON module %q: want the same path", q.Mapping, j.Modules[0].Path)
	}
	if got := q.Sample[0].Label["core"]; len(got) != 1 || got[0] != j.Core.Path {
		t.Errorf("core label %q, JSON core path %q", got, j.Core.Path)
	}
}

// TestGoroutineProfileWithoutWrappers: a goroutine profile leaves out
// the wrapper frames runtime/pprof's stacks do not have (the (*T).Boom
// method wrapper between viaInterface and T.Boom), but keeps a wrapper
// that called a panic function (runtime.panicwrap: nil receiver).
func TestGoroutineProfileWithoutWrappers(t *testing.T) {
	fn := func(name string, pc report.Hex, wrapper bool) report.Frame {
		return report.Frame{PC: pc, Trust: "cfi", Function: &name, GoWrapper: wrapper}
	}
	rep := &report.Report{Goroutines: []report.Goroutine{
		{ID: 1, Frames: []report.Frame{fn("main.T.Boom", 0x1010, false), fn("main.(*T).Boom", 0x1020, true), fn("main.viaInterface", 0x1030, false)}},
		{ID: 2, Frames: []report.Frame{fn("runtime.panicwrap", 0x1040, false), fn("main.(*T).Boom", 0x1021, true), fn("main.viaInterface", 0x1031, false)}},
	}}
	var buf bytes.Buffer
	if err := report.WritePprofGoroutines(&buf, []*report.Report{rep}); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range q.Sample {
		var names []string
		for _, l := range s.Location {
			for _, ln := range l.Line {
				names = append(names, ln.Function.Name)
			}
		}
		got = append(got, strings.Join(names, " "))
	}
	want := []string{"main.T.Boom main.viaInterface", "runtime.panicwrap main.(*T).Boom main.viaInterface"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stacks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

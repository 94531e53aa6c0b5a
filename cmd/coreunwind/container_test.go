package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/schematest"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

// functions is the crashed thread's function names, frame by frame.
func functions(t *testing.T, r *report.Report) []string {
	t.Helper()
	var names []string
	for _, f := range crashedThread(t, r).Frames {
		name := "?"
		if f.Function != nil {
			name = *f.Function
		}
		names = append(names, name)
	}
	return names
}

// decodeReports reads one JSON report after another.
func decodeReports(t *testing.T, out string) []*report.Report {
	t.Helper()
	var reps []*report.Report
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var r report.Report
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		reps = append(reps, &r)
	}
	return reps
}

// A journal file with two systemd-coredump entries of a real crash
// (and an ordinary message), an apport .crash file and an ABRT problem
// directory around the same core: each is reported as the core itself
// is, frame for frame, with the crash report's facts; --match chooses
// among a journal's entries as coredumpctl's matches do.
func TestCrashReportContainers(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "schema", schemaProg, "-O1", "-g")
	corePath, _ := testenv.Crash(t, exe)
	core := mustRead(t, corePath)
	code, stdout, stderr := runCLI("--format", "json", "--threads", "crashed", corePath, exe)
	if code != exitcode.OK {
		t.Fatalf("the core itself: exit %d: %s", code, stderr)
	}
	want := functions(t, decodeReports(t, stdout)[0])
	if !slices.Contains(want, "deref") {
		t.Fatalf("the core's own frames lack deref: %q", want)
	}

	entry1 := testenv.CoredumpEntry(1, 501, exe, core)
	entry2 := testenv.CoredumpEntry(2, 502, exe, core)
	for i := range entry2 {
		if entry2[i].Name == "COREDUMP_UNIT" {
			entry2[i].Value = []byte("b.service")
		}
	}
	message := []testenv.JournalField{
		{Name: "__REALTIME_TIMESTAMP", Value: []byte("1764236590000000")},
		{Name: "__MONOTONIC_TIMESTAMP", Value: []byte("1")},
		{Name: "_BOOT_ID", Value: []byte("0123456789abcdef0123456789abcdef")},
		{Name: "MESSAGE", Value: []byte("hello")},
	}
	journalPath := testenv.WriteJournal(t, dir, "system.journal", nil, [][]testenv.JournalField{message, entry1, entry2})
	crashPath := filepath.Join(dir, "_tmp_schema.1000.crash")
	os.WriteFile(crashPath, testenv.ApportReport(map[string]string{
		"ProblemType": "Crash", "ExecutablePath": exe, "ProcCmdline": exe, "Signal": "11", "Package": "schema 1.0",
		"ProcStatus": "Pid:\t601\nUid:\t1000\t1000\t1000\t1000",
	}, core), 0o644)
	problemDir := filepath.Join(dir, "ccpp-2025-11-27-601")
	testenv.WriteProblemDir(t, problemDir, map[string]string{"analyzer": "abrt-ccpp", "executable": exe, "pid": "701", "reason": "schema killed by SIGSEGV"}, core)

	for _, tc := range []struct {
		args    []string
		formats []string // core.origin.format of each report
		pids    []int    // core.origin.pid of each
	}{
		{[]string{journalPath, exe}, []string{"journal", "journal"}, []int{501, 502}},
		{[]string{"--match", "COREDUMP_UNIT=b.service", journalPath, exe}, []string{"journal"}, []int{502}},
		{[]string{"--match", "501", journalPath}, []string{"journal"}, []int{501}},
		{[]string{crashPath}, []string{"apport"}, []int{601}},
		{[]string{exe, problemDir}, []string{"abrt"}, []int{701}},
	} {
		args := append([]string{"--format", "json", "--threads", "crashed"}, tc.args...)
		code, stdout, stderr := runCLI(args...)
		if code != exitcode.OK {
			t.Errorf("%q: exit %d: %s", tc.args, code, stderr)
			continue
		}
		reps := decodeReports(t, stdout)
		if len(reps) != len(tc.formats) {
			t.Errorf("%q: %d reports, want %d", tc.args, len(reps), len(tc.formats))
			continue
		}
		for i, r := range reps {
			o := r.Core.Origin
			if o == nil || o.Format != tc.formats[i] || o.PID == nil || *o.PID != tc.pids[i] || o.Executable == nil || *o.Executable != exe {
				t.Errorf("%q: report %d: origin %+v", tc.args, i, o)
			}
			if got := functions(t, r); !slices.Equal(got, want) {
				t.Errorf("%q: report %d: frames %q, the core's %q", tc.args, i, got, want)
			}
		}
	}

	// A report with an origin has the schema document's shape.
	code, stdout, stderr = runCLI("--format", "json", "--match", "502", journalPath, exe)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	schematest.Check(t, schematest.Example(t, "../../report/report-json.md"), []byte(stdout), schematest.Exact)

	// Text: one report after another, each saying where it came from.
	code, stdout, stderr = runCLI("--threads", "crashed", journalPath, exe)
	if code != exitcode.OK || strings.Count(stdout, "from:        journal "+journalPath) != 2 ||
		!strings.Contains(stdout, "core:        "+journalPath+":2 ") || !strings.Contains(stdout, "unit:          b.service") {
		t.Errorf("text: exit %d: %s\n%s", code, stderr, stdout)
	}
	// A match that chooses nothing, and --match with a core file.
	if code, _, stderr := runCLI("--match", "COREDUMP_UNIT=none.service", journalPath); code != exitcode.NoCore || !strings.Contains(stderr, "no crash matches") {
		t.Errorf("no match: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI("--match", "1", corePath); code != exitcode.Usage {
		t.Errorf("--match with a core: exit %d: %s", code, stderr)
	}
	// pprof: each crash a core of the profile.
	prof := filepath.Join(dir, "out.pb.gz")
	if code, _, stderr := runCLI("--format", "pprof", "-o", prof, journalPath, crashPath, exe); code != exitcode.OK {
		t.Errorf("pprof: exit %d: %s", code, stderr)
	} else if b := mustRead(t, prof); !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("pprof: not gzip")
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

const twoBugsC = `
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) int deref(int *p) { return *p; }
__attribute__((noinline)) void bail(void) { abort(); }
int main(int argc, char **argv) {
	if (argc > 1 && !strcmp(argv[1], "abort")) bail();
	return deref(argc > 5 ? &argc : 0) + 1;
}
`

// crashDir crashes twoBugsC twice per bug into a directory, beside a file
// named like a core that is not one.
func crashDir(t *testing.T) (dir, exe string) {
	t.Helper()
	dir = t.TempDir()
	exe = testenv.BuildC(t, dir, "twobugs", twoBugsC, "-g", "-O1", "-fPIE", "-pie")
	for i, arg := range []string{"segv", "abort", "segv", "abort"} {
		core, _ := testenv.Crash(t, exe, arg)
		if err := os.Rename(core, filepath.Join(dir, fmt.Sprintf("core.%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "core.bad"), []byte("not a core\n"), 0o644)
	return dir, exe
}

// traces parses `go tool pprof -traces`: per trace its labels and its
// function names, leaf first.
func traces(t *testing.T, profile string) []struct {
	labels map[string]string
	funcs  []string
} {
	t.Helper()
	goTool := testenv.NeedTool(t, "go")
	out, err := exec.Command(goTool, "tool", "pprof", "-traces", profile).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -traces: %v\n%s", err, out)
	}
	var res []struct {
		labels map[string]string
		funcs  []string
	}
	for _, block := range strings.Split(string(out), "-----------+")[1:] {
		tr := struct {
			labels map[string]string
			funcs  []string
		}{labels: map[string]string{}}
		for _, line := range strings.Split(block, "\n")[1:] {
			f := strings.Fields(line)
			switch {
			case len(f) == 0:
			case strings.HasSuffix(f[0], ":") && len(tr.funcs) == 0:
				tr.labels[strings.TrimSuffix(f[0], ":")] = strings.Join(f[1:], " ")
			case f[0] == "1" && len(f) > 1:
				tr.funcs = append(tr.funcs, f[1])
			default:
				tr.funcs = append(tr.funcs, f[0])
			}
		}
		if len(tr.funcs) > 0 {
			res = append(res, tr)
		}
	}
	return res
}

// TestTriageCLI runs `coreunwind triage` in each format on one directory
// and checks that they agree: buckets in JSON, one report per core with
// its bucket in JSON lines, and one crashing-thread sample per core with
// the report's frames in the pprof profile.
func TestTriageCLI(t *testing.T) {
	dir, _ := crashDir(t)

	code, out, errOut := runCLI("triage", "--format", "json", dir)
	if code != exitcode.Partial {
		t.Fatalf("triage json: exit %d, want %d (one bad input)\n%s", code, exitcode.Partial, errOut)
	}
	var sum struct {
		Schema        string
		CoresTotal    int `json:"cores_total"`
		CoresAnalyzed int `json:"cores_analyzed"`
		CoresFailed   int `json:"cores_failed"`
		Buckets       []struct {
			ID, Signature string
			Count         int
		}
		Failures []struct{ Core, Error string }
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("triage json: %v\n%s", err, out)
	}
	if sum.Schema != "coreunwind.triage/v1" || sum.CoresTotal != 5 || sum.CoresAnalyzed != 4 || sum.CoresFailed != 1 ||
		len(sum.Buckets) != 2 || len(sum.Failures) != 1 || filepath.Base(sum.Failures[0].Core) != "core.bad" {
		t.Fatalf("triage json: %s", out)
	}
	sigs := map[string]string{}
	for _, b := range sum.Buckets {
		sigs[b.ID] = b.Signature
		if b.Count != 2 {
			t.Errorf("bucket %s (%s): %d cores, want 2", b.ID, b.Signature, b.Count)
		}
	}
	if !slices.Contains([]string{sigs[sum.Buckets[0].ID], sigs[sum.Buckets[1].ID]}, "deref") ||
		!slices.Contains([]string{sigs[sum.Buckets[0].ID], sigs[sum.Buckets[1].ID]}, "bail") {
		t.Errorf("signatures %v, want deref and bail", sigs)
	}

	code, out, errOut = runCLI("triage", dir, "--format", "jsonl", "-j", "1")
	if code != exitcode.Partial || !strings.Contains(errOut, "core.bad") {
		t.Fatalf("triage jsonl: exit %d, stderr %q", code, errOut)
	}
	reports := map[string]report.Report{}
	bucketOf := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			report.Report
			Bucket string `json:"bucket"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("jsonl line: %v\n%s", err, line)
		}
		if r.Schema != report.Schema || sigs[r.Bucket] == "" {
			t.Errorf("jsonl: schema %q bucket %q", r.Schema, r.Bucket)
		}
		reports[r.Core.Path], bucketOf[r.Core.Path] = r.Report, r.Bucket
		// jsonl writes the reports whole: every frame's registers, not
		// only the crash analysis's two (what json and text keep).
		for _, th := range r.Threads {
			for _, f := range th.Frames {
				if !f.Inlined && f.Trust != report.TrustTailCall && f.Registers == nil {
					t.Errorf("jsonl: %s: thread %d frame %d has no registers", r.Core.Path, th.TID, f.Index)
				}
			}
		}
	}
	if len(reports) != 4 {
		t.Fatalf("jsonl: %d reports, want 4", len(reports))
	}

	prof := filepath.Join(t.TempDir(), "crashes.pb.gz")
	if code, _, errOut = runCLI("triage", "--format", "pprof", "-o", prof, dir); code != exitcode.Partial {
		t.Fatalf("triage pprof: exit %d\n%s", code, errOut)
	}
	trs := traces(t, prof)
	if len(trs) != 4 {
		t.Fatalf("pprof: %d traces, want one per core (4)", len(trs))
	}
	for _, tr := range trs {
		core := tr.labels["core"]
		r, ok := reports[core]
		if !ok {
			t.Errorf("pprof trace for %q, not a core of the jsonl output", core)
			continue
		}
		if tr.labels["bucket"] != bucketOf[core] || tr.labels["crashed"] != "true" {
			t.Errorf("%s: labels %v, jsonl bucket %s", core, tr.labels, bucketOf[core])
		}
		var want []string
		for _, f := range r.Threads[0].Frames {
			if f.Function != nil {
				want = append(want, *f.Function)
			}
		}
		if !slices.Equal(tr.funcs, want) {
			t.Errorf("%s: pprof frames %q, report %q", core, tr.funcs, want)
		}
	}
}

// TestPprofSeveralCores: cores and the executable are told apart by
// content, whatever their names; every thread of every core is a sample.
func TestPprofSeveralCores(t *testing.T) {
	dir, exe := crashDir(t)
	// Names that say nothing: "prog.bin" is the core, "dump" the executable.
	os.Rename(filepath.Join(dir, "core.0"), filepath.Join(dir, "prog.bin"))
	os.Rename(exe, filepath.Join(dir, "dump"))
	prof := filepath.Join(t.TempDir(), "threads.pb.gz")
	code, _, errOut := runCLI("--format", "pprof", "-o", prof, filepath.Join(dir, "prog.bin"), filepath.Join(dir, "core.1"), filepath.Join(dir, "dump"))
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	cores := map[string]bool{}
	for _, tr := range traces(t, prof) {
		cores[filepath.Base(tr.labels["core"])] = true
		if tr.labels["signal"] == "" || tr.funcs[len(tr.funcs)-1] != "_start" {
			t.Errorf("trace %v %q", tr.labels, tr.funcs)
		}
	}
	if !cores["prog.bin"] || !cores["core.1"] || len(cores) != 2 {
		t.Errorf("cores in the profile: %v", cores)
	}
	if code, _, _ := runCLI("--format", "pprof", "-o", prof, filepath.Join(dir, "core.bad")); code != exitcode.NoCore {
		t.Errorf("a non-core: exit %d, want %d", code, exitcode.NoCore)
	}
}

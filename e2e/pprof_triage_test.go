package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkPprofAndTriage checks the generic outputs on one crash of another
// architecture: the pprof profile's crashed stack is the JSON report's,
// function for function (go tool pprof -traces reads it), and triage of a
// directory holding the core makes one bucket, signed by the crashing
// function, with the signal.
func checkPprofAndTriage(t *testing.T, c crash, signal string) {
	t.Helper()
	rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
	th := rep.thread(rep.Core.CrashedTID)
	if th == nil || len(th.Frames) == 0 {
		t.Fatalf("no crashed thread in the JSON report")
	}
	var want []string
	for _, f := range th.Frames {
		want = append(want, normalizeFunc(f.Function))
	}

	prof := filepath.Join(c.Dir, "threads.pb.gz")
	if r := runCoreunwind(t, "--format", "pprof", "-o", prof, c.Core, c.Exe); r.Code != exitOK {
		t.Fatalf("pprof: exit %d: %s", r.Code, r.Stderr)
	}
	traces := runTool(t, goTool(), "tool", "pprof", "-traces", prof)
	var got []string
	for _, block := range strings.Split(traces, "-----------+") {
		if !strings.Contains(block, "crashed:  true") {
			continue
		}
		for _, line := range strings.Split(block, "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || strings.HasSuffix(f[0], ":") || strings.HasPrefix(f[0], "---") {
				continue
			}
			name := f[len(f)-1]
			if strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]") {
				name = "" // pprof names a frame without a function by its module
			}
			got = append(got, normalizeFunc(name))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pprof's crashed stack %q, the JSON report's %q\n%s", got, want, traces)
	}

	dir := filepath.Join(c.Dir, "cores")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(c.Core, filepath.Join(dir, "core.crash")); err != nil {
		t.Fatal(err)
	}
	r := runCoreunwind(t, "triage", "--format", "json", "--search-path", c.Dir, dir)
	if r.Code != exitOK {
		t.Fatalf("triage: exit %d: %s", r.Code, r.Stderr)
	}
	var tri struct {
		Schema  string `json:"schema"`
		Buckets []struct {
			Signature string `json:"signature"`
			Signal    string `json:"signal"`
			Count     int    `json:"count"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &tri); err != nil {
		t.Fatalf("triage JSON: %v\n%s", err, r.Stdout)
	}
	if len(tri.Buckets) != 1 || tri.Buckets[0].Signature != want[0] || tri.Buckets[0].Signal != signal || tri.Buckets[0].Count != 1 {
		t.Errorf("triage buckets %+v, want one %s bucket with signature %q", tri.Buckets, signal, want[0])
	}
}

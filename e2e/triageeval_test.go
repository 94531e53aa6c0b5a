package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestTriageEvalCorpus builds the labelled corpus's slice (bench/
// triage-corpus.sh slice: twelve bugs in C, C++, Rust and Go, each
// reached through several callers and threads, -O0 and -O2, static and
// dynamic) and scores the buckets with `triage eval`: the exact
// signatures must keep BCubed F1 at 0.95 or more with no bucket holding
// two bugs (issue 25), and every bug and core must be counted.
func TestTriageEvalCorpus(t *testing.T) {
	testenv.NeedCores(t)
	for _, tool := range []string{"sh", "gcc", "g++", "rustc", "go"} {
		testenv.NeedTool(t, tool)
	}
	work := t.TempDir()
	script, err := filepath.Abs("../bench/triage-corpus.sh")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", script, work, "slice").CombinedOutput(); err != nil {
		t.Fatalf("triage-corpus.sh: %v\n%s", err, out)
	}
	labels := filepath.Join(work, "labels.txt")
	r := runCoreunwind(t, "triage", "eval", "--labels", labels, "--binaries", filepath.Join(work, "bin"),
		"--format", "json", filepath.Join(work, "cores"))
	if r.Code != exitOK {
		t.Fatalf("triage eval: exit %d: %s", r.Code, r.Stderr)
	}
	var ev struct {
		Schema           string `json:"schema"`
		SignatureVersion int    `json:"signature_version"`
		Cores, Bugs      int
		Missing, Failed  int
		Buckets          int
		F1               float64 `json:"f1"`
		MixedBuckets     int     `json:"mixed_buckets"`
		Mixed            []struct {
			Signature string
			Bugs      map[string]int
		}
		Split []struct {
			Bug     string
			Buckets []string
		}
		Links []struct{ Threshold float64 }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &ev); err != nil {
		t.Fatalf("triage eval JSON: %v\n%s", err, r.Stdout)
	}
	if ev.Schema != "coreunwind.triage-eval/v1" || ev.SignatureVersion < 2 {
		t.Errorf("schema %q, signature version %d", ev.Schema, ev.SignatureVersion)
	}
	if ev.Cores < 40 || ev.Bugs != 12 || ev.Missing != 0 || ev.Failed != 0 {
		t.Errorf("%d cores of %d bugs scored, %d labelled cores missing, %d failed: want 40+ cores of 12 bugs, none missing",
			ev.Cores, ev.Bugs, ev.Missing, ev.Failed)
	}
	if ev.F1 < 0.95 || ev.MixedBuckets != 0 {
		t.Errorf("BCubed F1 %.4f (want >= 0.95), %d buckets holding several bugs (want 0): mixed %+v, split %+v",
			ev.F1, ev.MixedBuckets, ev.Mixed, ev.Split)
	}
	if len(ev.Links) == 0 {
		t.Error("no similar-bucket link figures")
	}
	// The text form says the same.
	txt := runCoreunwind(t, "triage", "eval", "--labels", labels, "--binaries", filepath.Join(work, "bin"), filepath.Join(work, "cores"))
	if txt.Code != exitOK || !strings.Contains(txt.Stdout, "BCubed precision") || !strings.Contains(txt.Stdout, "buckets holding several bugs: 0") {
		t.Errorf("triage eval text: exit %d:\n%s%s", txt.Code, txt.Stdout, txt.Stderr)
	}
}

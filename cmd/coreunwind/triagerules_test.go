package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An invalid rules file is a usage error that names the file and the
// line; a valid one is accepted.
func TestTriageRulesFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "rules.txt")
	if err := os.WriteFile(bad, []byte("# ours\nfunction:log_and_die skip\nfunction:abort explode\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"triage", "--rules", bad, dir}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "rules.txt: line 3: action \"explode\"") {
		t.Errorf("bad rules: exit %d, stderr %q", code, stderr.String())
	}
	good := filepath.Join(dir, "good.txt")
	if err := os.WriteFile(good, []byte("function:log_and_die skip\nsignature:x -> y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"triage", "--rules", good, "--print-skip"}, &stdout, &stderr); code != 0 {
		t.Errorf("good rules: exit %d, stderr %q", code, stderr.String())
	}
	// eval needs its labels, and --labels needs eval.
	stderr.Reset()
	if code := run([]string{"triage", "eval", dir}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "--labels FILE is required") {
		t.Errorf("eval without labels: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"triage", "--labels", good, dir}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "only for triage eval") {
		t.Errorf("labels without eval: exit %d, stderr %q", code, stderr.String())
	}
}

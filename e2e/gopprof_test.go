package e2e

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGoroutineProfile: --format pprof-goroutines writes a Go program's
// goroutine profile, which go tool pprof reads as it reads runtime/pprof's:
// type goroutine, one sample per goroutine the runtime printed at the
// crash, the pprof labels as the samples' labels (-traces prints them,
// -tagfocus selects by them).
func TestGoroutineProfile(t *testing.T) {
	t.Parallel()
	c, _ := crashGofeat(t, "gofeat", nil, "labels")
	goroutines := len(goBlocks(c.Output, runtimeGoHeader))
	prof := filepath.Join(t.TempDir(), "goroutines.pb.gz")
	if r := runCoreunwind(t, "--format", "pprof-goroutines", "-o", prof, c.Core, c.Exe); r.Code != exitOK {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	pprof := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(goTool(), append(append([]string{"tool", "pprof"}, args...), prof)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	traces := pprof("-traces")
	if !strings.Contains(traces, "Type: goroutine\n") {
		t.Errorf("go tool pprof -traces: not a goroutine profile:\n%s", truncate(traces, 3000))
	}
	samples := len(regexp.MustCompile(`(?m)^ +1 +\S`).FindAllString(traces, -1))
	if samples != goroutines {
		t.Errorf("%d samples, the runtime printed %d goroutines:\n%s", samples, goroutines, truncate(traces, 6000))
	}
	if n := strings.Count(traces, "      role:  worker\n     shard:  7\n         1   runtime.gopark\n"); n != 2 {
		t.Errorf("%d samples labelled role=worker shard=7 parked, want 2:\n%s", n, truncate(traces, 6000))
	}
	top := pprof("-top", "-tagfocus", "role=worker")
	if !regexp.MustCompile(`Showing nodes accounting for 2, [0-9.]+% of \d+ total`).MatchString(top) ||
		!strings.Contains(top, "main.labelled") {
		t.Errorf("go tool pprof -top -tagfocus role=worker:\n%s", top)
	}
}

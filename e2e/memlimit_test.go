package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// exitMemory is coreunwind's exit code when its heap exceeds the limit.
const exitMemory = 7

// TestOutOfMemoryExit: a process whose heap outgrows its memory used to
// end as the Go runtime's "fatal error: out of memory" with a dump of
// every goroutine and exit code 2 (an unreadable core, to a script), or
// be killed by the kernel without a word. Now the heap is bounded
// (GOMEMLIMIT, else three quarters of the machine's or cgroup's memory)
// and exceeding it ends the run with one line and exit code 7. A limit of
// 256 KiB stands in for the machine running out: well below what the
// report needs (the check runs after a collection, so a run that only
// just exceeds the limit, as this one did at 1 MiB once its DWARF was
// read lazily, can end before the check and exit 0).
func TestOutOfMemoryExit(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(repoRoot, "testdata", "cores", "threads-dyn")
	r := runCoreunwindEnv(t, []string{"GOMEMLIMIT=256KiB"}, filepath.Join(dir, "core"), filepath.Join(dir, "threads"))
	if r.Code != exitMemory || !strings.Contains(r.Stderr, "coreunwind: out of memory:") || strings.Contains(r.Stderr, "goroutine ") {
		t.Errorf("exit code %d, want %d with one line saying so; stderr:\n%s", r.Code, exitMemory, r.Stderr)
	}
	r = runCoreunwindEnv(t, []string{"GOMEMLIMIT=1GiB"}, filepath.Join(dir, "core"), filepath.Join(dir, "threads"))
	if r.Code != exitOK {
		t.Errorf("with room: exit code %d, want %d; stderr:\n%s", r.Code, exitOK, r.Stderr)
	}
}

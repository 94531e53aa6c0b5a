package tempname

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestSweepStale: only what a dead coreunwind process left, by its name
// pattern and older than the run, is removed.
func TestSweepStale(t *testing.T) {
	dir := t.TempDir()
	// A pid that is gone: a process that ran and was reaped.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	old := time.Now().Add(-time.Hour)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Join(p, "bin1"), 0o755)
		os.WriteFile(filepath.Join(p, "core-1"), []byte("partial core"), 0o600)
		os.Chtimes(p, mtime, mtime)
		return p
	}
	stale := []string{
		mk(fmt.Sprintf("coreunwind-triage-%d-123", dead), old),
		mk(fmt.Sprintf("coreunwind-core-%d-456", dead), old),
	}
	kept := []string{
		mk(fmt.Sprintf("coreunwind-triage-%d-1", os.Getpid()), old),                  // this process
		mk("coreunwind-triage-1-1", old),                                             // a live process (init)
		mk(fmt.Sprintf("coreunwind-triage-%d-new", dead), time.Now().Add(time.Hour)), // newer than the run
		mk("coreunwind-triage-123456789", old),                                       // no pid in the name
		mk(fmt.Sprintf("other-triage-%d-1", dead), old),                              // not coreunwind's
	}
	removed := SweepStale(dir, time.Now())
	slices.Sort(removed)
	slices.Sort(stale)
	if !slices.Equal(removed, stale) {
		t.Errorf("removed %v, want %v", removed, stale)
	}
	for _, p := range stale {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s not removed", p)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(filepath.Join(p, "core-1")); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

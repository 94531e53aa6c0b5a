package corefile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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

// TestUnlinkedTemp: the scratch file for a decompressed core has no name
// in its directory, and an unusable directory is an error naming it and
// TMPDIR.
func TestUnlinkedTemp(t *testing.T) {
	dir := t.TempDir()
	f, err := createUnlinkedTemp(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("data"), 1<<20); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("directory holds %v", ents)
	}
	f.Close()

	bad := filepath.Join(dir, "no", "such")
	t.Setenv("TMPDIR", bad)
	_, err = createUnlinkedTemp("")
	if err == nil {
		t.Fatal("no error for a missing TMPDIR")
	}
	if msg := TempDirError("", err).Error(); !strings.Contains(msg, "TMPDIR") || !strings.Contains(msg, bad) {
		t.Errorf("error %q does not name TMPDIR and %s", msg, bad)
	}
}

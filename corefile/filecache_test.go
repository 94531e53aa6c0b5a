package corefile

import (
	"os"
	"path/filepath"
	"testing"
)

// A batch shares one mapping per file between cores, and finds a renamed
// executable by its build ID.
func TestFileCacheAndBuildIDLookup(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "segv", "0")
	id, err := FileBuildID(prog)
	if err != nil || id == "" {
		t.Fatalf("FileBuildID: %q, %v", id, err)
	}
	renamed := filepath.Join(t.TempDir(), "renamed-binary")
	copyFile(t, prog, renamed)
	if err := os.Rename(prog, prog+".gone"); err != nil {
		t.Fatal(err)
	}
	files := NewFileCache()
	defer files.Close()
	asked := 0
	opts := Options{Files: files, FindByBuildID: func(b string) []string {
		asked++
		if b == id {
			return []string{renamed}
		}
		return nil
	}}
	var cores []*Core
	for i := 0; i < 3; i++ {
		c, err := Open(core, opts)
		if err != nil {
			t.Fatal(err)
		}
		cores = append(cores, c)
		if m := c.Modules[0]; m.File != renamed || !m.Found {
			t.Fatalf("core %d: main module file %q found %v; warnings %q", i, m.File, m.Found, c.Warnings)
		}
		checkMemory(t, c, facts)
	}
	if asked == 0 {
		t.Error("FindByBuildID was never asked")
	}
	files.mu.Lock()
	n := 0
	for k := range files.files {
		if k.path == renamed {
			n++
		}
	}
	files.mu.Unlock()
	if n != 1 {
		t.Errorf("the renamed binary is cached %d times, want once for three cores", n)
	}
	for _, c := range cores {
		c.Close()
	}
	// The cache, not the cores, owns the mappings: they are still readable.
	c, err := Open(core, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checkMemory(t, c, facts)
}

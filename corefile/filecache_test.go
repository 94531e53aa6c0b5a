package corefile

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
		// The batch's other caches key the file by the identity the
		// module carries: it must be the file's.
		var st unix.Stat_t
		if err := unix.Stat(renamed, &st); err != nil {
			t.Fatal(err)
		}
		want := FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: int64(st.Size), Mtime: st.Mtim.Nano()}
		if got := c.Modules[0].FileID; got != want {
			t.Errorf("core %d: main module's FileID %+v, the file's %+v", i, got, want)
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

// A file replaced under its path by another of the same size and time
// between two cores of a batch is read again.
func TestFileCacheNoticesReplacedFile(t *testing.T) {
	dir := t.TempDir()
	p, next := filepath.Join(dir, "file"), filepath.Join(dir, "file.next")
	when := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, name := range []string{p, next} {
		if err := os.WriteFile(name, []byte(name[len(name)-4:]), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(name, when, when)
	}
	files := NewFileCache()
	defer files.Close()
	f, err := files.get(p)
	if err != nil || string(f.data) != "file" {
		t.Fatalf("first get: %q, %v", f.data, err)
	}
	if err := os.Rename(next, p); err != nil {
		t.Fatal(err)
	}
	f, err = files.get(p)
	if err != nil || string(f.data) != "next" {
		t.Fatalf("get after the file was replaced by one of the same size and time: %q, %v", f.data, err)
	}
}

package corefile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSysrootFallsBackToRecordedPath: --sysroot is looked in first; a
// module it lacks is taken from the path the core records when that
// file's build ID is the core's (with a warning), so a wrong or partial
// sysroot does not lose every module; a recorded file of another build is
// not taken.
func TestSysrootFallsBackToRecordedPath(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "segv", "0")

	// A wrong sysroot: every module comes from its recorded path, and
	// the memory reads are the real bytes.
	wrong := t.TempDir()
	c, err := Open(core, Options{Sysroot: wrong})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range c.Modules {
		if m.InCore || m.BuildID == "" {
			continue
		}
		n++
		if !m.Found || m.File != m.Path || !hasWarning(c, "module "+m.Path+": not found under sysroot "+wrong+"; using "+m.Path) {
			t.Errorf("module %s: file %q found %v; warnings %q", m.Path, m.File, m.Found, c.Warnings)
		}
	}
	if n < 3 {
		t.Errorf("want the program, libc and the loader with build IDs; have %d modules", n)
	}
	checkMemory(t, c, facts)
	c.Close()

	// The sysroot's copy comes first, without a warning.
	sysroot := t.TempDir()
	inRoot := filepath.Join(sysroot, prog)
	copyFile(t, prog, inRoot)
	c, err = Open(core, Options{Sysroot: sysroot})
	if err != nil {
		t.Fatal(err)
	}
	if m := c.Modules[0]; m.File != inRoot || !m.Found || hasWarning(c, "module "+prog+":") {
		t.Errorf("main module file %q found %v, want the sysroot's copy; warnings %q", m.File, m.Found, c.Warnings)
	}
	c.Close()

	// Another build at the recorded path is refused, not used unverified.
	other := buildC(t, t.TempDir(), "crash", "-DEXTRA_UNUSED=1", "-O0")
	if err := os.Rename(other, prog); err != nil {
		t.Fatal(err)
	}
	c, err = Open(core, Options{Sysroot: wrong})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if m := c.Modules[0]; m.Found || !hasWarning(c, "module "+prog+": build ID", "differs from", "not used") || !hasWarning(c, "module "+prog+": build ID", "not found in "+filepath.Join(wrong, prog)) {
		t.Errorf("another build at the recorded path: file %q found %v; warnings %q", m.File, m.Found, c.Warnings)
	}
}

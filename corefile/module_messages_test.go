package corefile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestModuleMessages: what goes wrong with a module's file is said once,
// in words: a file without a build ID ("no build ID in FILE (the core
// says X)", not "differs from none"), and a module whose only candidate
// is not a file ("PATH: not a regular file" with the path once, then
// "not found", not "not found (looked in )").
func TestModuleMessages(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, _ := crash(t, prog, "segv", "0")
	noID := buildC(t, t.TempDir(), "crash", "-Wl,--build-id=none")
	coreID := readelfBuildID(t, prog)

	c, err := Open(core, Options{Executable: noID})
	if err != nil {
		t.Fatal(err)
	}
	want := "module " + prog + ": no build ID in " + noID + " (the core says " + coreID + "): not used; using " + prog + " (build ID matches)"
	if !slices.Contains(c.Warnings, want) {
		t.Errorf("warnings %q, want %q", c.Warnings, want)
	}
	if m := c.Modules[0]; m.File != prog || !m.Found {
		t.Errorf("main module file %q, found %v: want the recorded file after the refused one", m.File, m.Found)
	}
	c.Close()

	// The recorded path is now a directory: the one candidate fails
	// (and says why); nothing was looked for in vain.
	if err := os.Rename(prog, prog+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(prog, 0o700); err != nil {
		t.Fatal(err)
	}
	c, err = Open(core, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var about []string
	for _, w := range c.Warnings {
		if strings.HasPrefix(w, "module "+prog+":") {
			about = append(about, w)
		}
	}
	wantNotFound := "module " + prog + ": not found; give it with --sysroot DIR or --search-path DIR"
	if !slices.ContainsFunc(about, func(w string) bool { return strings.HasPrefix(w, wantNotFound) }) || !slices.Contains(about, "module "+prog+": "+prog+": not a regular file (directory)") {
		t.Errorf("warnings about %s: %q, want %q and why %s was not used", filepath.Base(prog), about, wantNotFound, prog)
	}
	for _, w := range about {
		if strings.Contains(w, "looked in )") {
			t.Errorf("warning with an empty list: %q", w)
		}
	}
}

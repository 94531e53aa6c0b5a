package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// crashNamed builds a program whose crashing function is fn, crashes it
// in its own directory, and moves the executable to bins/name: the path
// the core records no longer exists, only a pairing finds the file.
func crashNamed(t *testing.T, bins, fn, name string, flags ...string) (core, exe string) {
	t.Helper()
	dir := t.TempDir()
	src := "#include <stdlib.h>\n__attribute__((noinline)) void " + fn + "(void) { abort(); }\nint main(void) { " + fn + "(); return 0; }\n"
	built := testenv.BuildC(t, dir, "prog", src, append([]string{"-O0", "-g"}, flags...)...)
	core, _ = testenv.Crash(t, built)
	exe = filepath.Join(bins, name)
	if err := os.Rename(built, exe); err != nil {
		t.Fatal(err)
	}
	return core, exe
}

// Several cores and executables in one profile: each core is paired with
// its own executable by build ID, whatever the names and the order; only
// a core whose executable is not given is warned about.
func TestPprofPairsExecutables(t *testing.T) {
	bins := t.TempDir()
	coreA, exeA := crashNamed(t, bins, "post_ledger", "a.bin")
	coreB, exeB := crashNamed(t, bins, "close_books", "b.bin")
	coreC, exeC := crashNamed(t, bins, "audit_trail", "c.bin")
	if err := os.Remove(exeC); err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(t.TempDir(), "p.pb.gz")
	code, _, stderr := runCLI("--format", "pprof", "-o", prof, coreA, coreB, exeB, coreC, exeA)
	// Core C's stack stops at its missing executable: a partial result.
	if code != exitcode.Partial {
		t.Fatalf("exit %d, want %d (core C's executable is missing): %s", code, exitcode.Partial, stderr)
	}
	want := map[string]string{coreA: "post_ledger", coreB: "close_books"}
	seen := map[string]bool{}
	for _, tr := range traces(t, prof) {
		core := tr.labels["core"]
		if fn, ok := want[core]; ok {
			seen[core] = true
			if !slices.Contains(tr.funcs, fn) || !slices.Contains(tr.funcs, "main") {
				t.Errorf("%s: frames %q lack %s and main: not paired with its executable", core, tr.funcs, fn)
			}
		}
	}
	if len(seen) != 2 {
		t.Errorf("cores A and B in the profile: %v", seen)
	}
	warned := false
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "coreunwind: warning: "+coreC+": ") {
			t.Errorf("a warning about a core that has its executable: %q", l)
		}
		warned = true
	}
	if !warned {
		t.Errorf("no warning for %s, whose executable is not given", coreC)
	}
}

// A core that records no build ID for its executable (linked with
// --build-id=none) is paired with the executable of the same file name.
func TestPprofPairsByName(t *testing.T) {
	bins := t.TempDir()
	_, exeA := crashNamed(t, bins, "post_ledger", "a.bin")
	core, exe := crashNamed(t, t.TempDir(), "reopen_period", "prog", "-Wl,--build-id=none")
	prof := filepath.Join(t.TempDir(), "p.pb.gz")
	code, _, stderr := runCLI("--format", "pprof", "-o", prof, exeA, core, exe)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, tr := range traces(t, prof) {
		if !slices.Contains(tr.funcs, "reopen_period") {
			t.Errorf("frames %q lack reopen_period: not paired by name; stderr:\n%s", tr.funcs, stderr)
		}
	}
}

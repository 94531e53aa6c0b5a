package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestI386MissingLibraryInCore: an i386 program whose C library and
// loader are gone when the core is read (copied beside it, and removed
// after the crash), with --sysroot an empty directory. The core holds
// the library's code (coredump_filter 0x3f), but not its file's unwind
// information: no caller may be guessed in it (a stack scan through
// qsort's frames found its callback four times over, and stale return
// addresses as callers; i386 has no link register). Every walk that
// reaches a frame of the missing library stops there and says why, and
// the exit code is 3.
func TestI386MissingLibraryInCore(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, testenv.I386.CC())
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"libc.so.6", "ld-linux.so.2"} {
		b, err := os.ReadFile(filepath.Join(testenv.I386.Sysroot(), "lib", f))
		if err != nil {
			testenv.Unavailable(t, "the i386 C library: "+err.Error())
		}
		if err := os.WriteFile(filepath.Join(lib, f), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "sortcrash")
	testenv.Build(t, testenv.I386.CC(), "-g", "-O2", "-o", exe, filepath.Join(repoRoot, "e2e", "testdata", "progs", "sortcrash.c"),
		"-lpthread", "-Wl,--dynamic-linker="+filepath.Join(lib, "ld-linux.so.2"), "-Wl,-rpath,"+lib)
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	var cores []string
	for _, args := range []string{"x", "x x", "x x x"} {
		cdir := filepath.Join(dir, strings.ReplaceAll(args, " ", "-"))
		if err := os.Mkdir(cdir, 0o755); err != nil {
			t.Fatal(err)
		}
		core, _ := testenv.CrashIn(t, cdir, "/bin/sh", nil, "-c", `echo 0x3f > /proc/self/coredump_filter; exec "$0" "$@"`, exe, args)
		cores = append(cores, core)
	}
	if err := os.RemoveAll(lib); err != nil {
		t.Fatal(err)
	}
	for _, core := range cores {
		rep, r := unwindJSON(t, []string{"--sysroot", empty}, core, exe)
		if r.Code != exitPartial {
			t.Errorf("%s: exit code %d, want %d", core, r.Code, exitPartial)
		}
		for _, th := range rep.Threads {
			for i, f := range th.Frames {
				missing := strings.HasPrefix(f.Module, lib+"/")
				if missing && i+1 < len(th.Frames) {
					t.Errorf("%s: thread %d: frame #%d follows frame #%d in the missing %s:\n%s", core, th.TID, i+1, i, f.Module, r.Stdout)
				}
				if missing && i+1 == len(th.Frames) && th.Error == nil {
					t.Errorf("%s: thread %d ends in the missing %s without an error", core, th.TID, f.Module)
				}
			}
		}
	}
}

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplacedLibrary: the program crashed in a callback its shared
// library called five frames deep; then the library was rebuilt at the
// same path (an upgrade: other code, another build ID). The stack must
// not end silently at the library: the thread says where and why it
// stopped and what to give (exit 3, the partial result; JSON truncated
// and error). With the original library given by --search-path the
// whole stack is back, and the warning says which file was used. With
// the library gone, the thread says it was not found and where to put
// it.
func TestReplacedLibrary(t *testing.T) {
	t.Parallel()
	exe := privateCopy(t, buildProgram(t, "callback"), "libcallback.so")
	lib := filepath.Join(filepath.Dir(exe), "libcallback.so")
	c := crashProgram(t, exe, nil)
	orig := filepath.Join(t.TempDir(), "orig", "libcallback.so")
	copyFile(t, lib, orig)
	src := filepath.Join(repoRoot, "e2e", "testdata", "progs")
	if err := runIn(filepath.Dir(lib), "gcc", callbackLibArgs(src, lib, "-DREBUILT=1")...); err != nil {
		t.Fatal(err)
	}
	if a, b := buildID(t, orig), buildID(t, lib); a == b || a == "" {
		t.Fatalf("the rebuilt library has build ID %q, the original %q: want two different ones", b, a)
	}

	// The replaced library alone.
	rep, r := unwindJSON(t, nil, c.Core, exe)
	th := crashedThread(t, rep)
	if r.Code != exitPartial {
		t.Errorf("replaced library: exit %d, want %d (partial)", r.Code, exitPartial)
	}
	expectFunctions(t, th, "crash_in_callback")
	last := th.Frames[len(th.Frames)-1]
	if last.Module != lib || frameOf(th, "main") != nil {
		t.Errorf("replaced library: the stack does not stop at the library's frame:\n%s", formatFrames(th, 40))
	}
	if !th.Truncated || th.Error == nil {
		t.Errorf("replaced library: truncated=%v error=%v, want a truncated thread with an error\n%s", th.Truncated, th.Error, formatFrames(th, 40))
	}
	for _, want := range []string{"no unwind information for PC " + last.PC, "in libcallback.so", "differs from", lib, "--search-path DIR", "DEBUGINFOD_URLS"} {
		if th.Error != nil && !strings.Contains(*th.Error, want) {
			t.Errorf("replaced library: thread error %q does not say %q", *th.Error, want)
		}
	}
	if !hasWarningWith(rep.Warnings, lib, "not used", "--search-path DIR") {
		t.Errorf("replaced library: no warning says what to do:\n%s", strings.Join(rep.Warnings, "\n"))
	}
	text := runCoreunwind(t, c.Core, exe)
	if text.Code != exitPartial || !strings.Contains(text.Stdout, "Backtrace stopped: no unwind information for PC "+last.PC+" in libcallback.so (") {
		t.Errorf("replaced library, text: exit %d, no gdb-style \"Backtrace stopped\" line:\n%s", text.Code, truncate(text.Stdout, 4000))
	}

	// The original given by --search-path.
	rep, r = unwindJSON(t, []string{"--search-path", filepath.Dir(orig)}, c.Core, exe)
	th = crashedThread(t, rep)
	if r.Code != exitOK || th.Error != nil || th.Truncated {
		t.Errorf("with --search-path: exit %d, error %v, truncated %v; want the whole stack\n%s", r.Code, th.Error, th.Truncated, formatFrames(th, 40))
	}
	expectFunctions(t, th, "crash_in_callback", "callback_walk", "call_library", "main")
	if walks := countFunction(th, "callback_walk"); walks != 6 {
		t.Errorf("with --search-path: %d callback_walk frames, want 6\n%s", walks, formatFrames(th, 40))
	}
	if !hasWarningWith(rep.Warnings, lib, "using "+orig+" (build ID matches)") {
		t.Errorf("with --search-path: no warning names the file used:\n%s", strings.Join(rep.Warnings, "\n"))
	}

	// The library gone.
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	rep, r = unwindJSON(t, nil, c.Core, exe)
	th = crashedThread(t, rep)
	if r.Code != exitPartial || th.Error == nil || !th.Truncated ||
		!strings.Contains(*th.Error, "not found") || !strings.Contains(*th.Error, "--sysroot DIR or --search-path DIR") {
		t.Errorf("library gone: exit %d, truncated %v, error %v; want exit 3 and an error saying where to give it", r.Code, th.Truncated, th.Error)
	}
}

// countFunction counts the thread's frames naming fn.
func countFunction(th *reportThread, fn string) int {
	n := 0
	for _, f := range th.Frames {
		if normalizeFunc(f.Function) == fn {
			n++
		}
	}
	return n
}

// hasWarningWith reports whether one warning contains all of parts.
func hasWarningWith(warnings []string, parts ...string) bool {
	for _, w := range warnings {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return true
		}
	}
	return false
}

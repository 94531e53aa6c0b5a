package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDebugDirAdds: --debug-dir adds a directory to /usr/lib/debug, it
// does not replace it: the program's debug file comes from the one
// given, and libc's (libc6-dbg) still from /usr/lib/debug, so libc's
// static functions keep their names. --no-default-debug-dirs leaves
// /usr/lib/debug out: libc's frames lose their names, and the report
// says, once, which debug file is missing and its build ID.
func TestDebugDirAdds(t *testing.T) {
	t.Parallel()
	exe := privateCopy(t, buildProgram(t, "null-stripped-buildid"))
	id := buildID(t, exe)
	debugDir := filepath.Join(t.TempDir(), "debug")
	copyFile(t, filepath.Join(filepath.Dir(buildProgram(t, "null-stripped-buildid")), "nullderef.debug"),
		filepath.Join(debugDir, ".build-id", id[:2], id[2:]+".debug"))
	c := crashProgram(t, exe, nil)

	rep, _ := unwindJSON(t, []string{"--debug-dir", debugDir}, c.Core, exe)
	th := crashedThread(t, rep)
	expectFunctions(t, th, "store_through", "middle", "outer", "main", "__libc_start_call_main")
	libc := moduleOfFunction(t, th, "__libc_start_call_main")
	if m := reportModule(rep, libc); m == nil || m.DebugFile == "" {
		t.Errorf("--debug-dir %s: %s has no debug file: /usr/lib/debug was not searched", debugDir, libc)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "Missing separate debuginfo") {
			t.Errorf("--debug-dir %s: unexpected warning %q", debugDir, w)
		}
	}

	rep, _ = unwindJSON(t, []string{"--debug-dir", debugDir, "--no-default-debug-dirs"}, c.Core, exe)
	th = crashedThread(t, rep)
	expectFunctions(t, th, "store_through", "middle", "outer", "main")
	if frameOf(th, "__libc_start_call_main") != nil {
		t.Errorf("--no-default-debug-dirs: libc's static __libc_start_call_main is still named: /usr/lib/debug was searched\n%s", formatFrames(th, 40))
	}
	libcID := buildID(t, libc)
	if n := countWarningsWith(rep.Warnings, "Missing separate debuginfo for "+libc+":", "DEBUGINFOD_URLS", "build ID "+libcID); n != 1 {
		t.Errorf("--no-default-debug-dirs: %d warnings name libc's missing debug file with its build ID, want 1:\n%s", n, strings.Join(rep.Warnings, "\n"))
	}
	if n := countWarningsWith(rep.Warnings, "Missing separate debuginfo for "+exe); n != 0 {
		t.Errorf("--no-default-debug-dirs: the program's debug file was found, yet:\n%s", strings.Join(rep.Warnings, "\n"))
	}
}

// TestDebuglinkInDebugDir: a stripped program without a build ID whose
// debug file, named as its .gnu_debuglink says, is put straight into the
// --debug-dir is found there (CRC checked); a file of that name with
// other contents is rejected, and the warning names the missing debug
// file, the .gnu_debuglink name and the rejected file.
func TestDebuglinkInDebugDir(t *testing.T) {
	t.Parallel()
	exe := privateCopy(t, buildProgram(t, "null-stripped-debuglink"))
	c := crashProgram(t, exe, nil)

	debugDir := filepath.Join(t.TempDir(), "debug")
	copyFile(t, filepath.Join(filepath.Dir(buildProgram(t, "null-stripped-debuglink")), "nullderef.debug"),
		filepath.Join(debugDir, "nullderef.debug"))
	rep, _ := unwindJSON(t, []string{"--debug-dir", debugDir}, c.Core, exe)
	th := crashedThread(t, rep)
	expectFunctions(t, th, "store_through", "middle", "outer", "main")
	if m := reportModule(rep, exe); m == nil || m.DebugFile != filepath.Join(debugDir, "nullderef.debug") {
		t.Errorf("the debug file in --debug-dir by its .gnu_debuglink name was not used: %+v", m)
	}

	// Another build's debug file under the same name: its CRC differs.
	wrongDir := filepath.Join(t.TempDir(), "wrong")
	copyFile(t, filepath.Join(filepath.Dir(buildProgram(t, "null-stripped-buildid")), "nullderef.debug"),
		filepath.Join(wrongDir, "nullderef.debug"))
	rep, _ = unwindJSON(t, []string{"--debug-dir", wrongDir}, c.Core, exe)
	th = crashedThread(t, rep)
	if frameOf(th, "store_through") != nil {
		t.Errorf("a debug file whose CRC differs was used:\n%s", formatFrames(th, 40))
	}
	wrong := filepath.Join(wrongDir, "nullderef.debug")
	if n := countWarningsWith(rep.Warnings, "Missing separate debuginfo for "+exe+":", ".gnu_debuglink nullderef.debug", wrong, "CRC32"); n != 1 {
		t.Errorf("%d warnings name the missing debug file, its .gnu_debuglink and the rejected %s, want 1:\n%s", n, wrong, strings.Join(rep.Warnings, "\n"))
	}
	if _, err := os.Stat(wrong); err != nil {
		t.Fatal(err)
	}
}

// moduleOfFunction returns the module of the thread's first frame
// naming fn, failing the test when there is none.
func moduleOfFunction(t *testing.T, th *reportThread, fn string) string {
	t.Helper()
	f := frameOf(th, fn)
	if f == nil || f.Module == "" {
		t.Fatalf("no frame with a module names %s:\n%s", fn, formatFrames(th, 40))
	}
	return f.Module
}

// reportModule returns the report's module at path, or nil.
func reportModule(rep *report, path string) *module {
	for i := range rep.Modules {
		if rep.Modules[i].Path == path {
			return &rep.Modules[i]
		}
	}
	return nil
}

// countWarningsWith counts the warnings that contain all of parts.
func countWarningsWith(warnings []string, parts ...string) int {
	n := 0
	for _, w := range warnings {
		if hasWarningWith([]string{w}, parts...) {
			n++
		}
	}
	return n
}

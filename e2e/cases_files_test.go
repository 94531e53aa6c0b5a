package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// copyFile copies src to dst (creating dst's directory) with src's mode.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// privateCopy copies a built program into a fresh directory, so a test may
// move or delete it (and its debug file) without disturbing other tests.
func privateCopy(t *testing.T, exe string, alsoNames ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bin")
	dst := filepath.Join(dir, filepath.Base(exe))
	copyFile(t, exe, dst)
	for _, n := range alsoNames {
		copyFile(t, filepath.Join(filepath.Dir(exe), n), filepath.Join(dir, n))
	}
	return dst
}

// TestStrippedWithDebugFile: a stripped executable whose symbols, lines and
// static functions come only from its separate debug file, found by build
// ID under --debug-dir, by .gnu_debuglink next to the executable, and by
// .gnu_debuglink under --debug-dir mirroring the executable's directory.
func TestStrippedWithDebugFile(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, c *crashCase, flags []string, gdbDebugDir string) {
		t.Helper()
		var gdbExtra []string
		if gdbDebugDir != "" {
			gdbExtra = []string{"-iex", "set debug-file-directory " + gdbDebugDir + ":/usr/lib/debug"}
		}
		c.GDB, c.GDBOut = runGDB(t, c.Exe, c.Core, gdbExtra...)
		var euExtra []string
		if gdbDebugDir != "" {
			euExtra = []string{"--debuginfo-path=" + gdbDebugDir + ":/usr/lib/debug"}
		}
		c.EU, c.EUOut = runEuStack(t, c.Exe, c.Core, euExtra...)
		if refFrameOf(c.GDB[c.pid(t)], "store_through") == nil {
			t.Fatalf("gdb did not find the debug file either; check the test setup:\n%s", c.GDBOut)
		}
		c.Report, c.Run = unwindJSON(t, flags, c.Core, c.Exe)
		compareWithReferences(t, c.GDB, c.EU, c.Report)
		th := c.crashed(t)
		expectFunctions(t, th, "store_through", "middle", "outer", "main")
		c.expectLines(t, th, "store_through", "middle", "outer", "main")
		for _, m := range c.Report.Modules {
			if m.Path == c.Exe && m.DebugFile == "" {
				t.Errorf("module %s: debug_file is empty", m.Path)
			}
		}
	}
	t.Run("build-id", func(t *testing.T) {
		t.Parallel()
		exe := privateCopy(t, buildProgram(t, "null-stripped-buildid"))
		id := buildID(t, exe)
		if len(id) < 4 {
			t.Fatalf("%s has no build ID", exe)
		}
		debugDir := filepath.Join(t.TempDir(), "debug")
		copyFile(t, filepath.Join(filepath.Dir(buildProgram(t, "null-stripped-buildid")), "nullderef.debug"),
			filepath.Join(debugDir, ".build-id", id[:2], id[2:]+".debug"))
		c := &crashCase{crash: crashProgram(t, exe, nil)}
		check(t, c, []string{"--debug-dir", debugDir, "--debug-dir", "/usr/lib/debug"}, debugDir)
	})
	t.Run("debuglink-beside", func(t *testing.T) {
		t.Parallel()
		exe := privateCopy(t, buildProgram(t, "null-stripped-debuglink"), "nullderef.debug")
		if id := buildID(t, exe); id != "" {
			t.Fatalf("%s has build ID %s; this case must work by debuglink alone", exe, id)
		}
		c := &crashCase{crash: crashProgram(t, exe, nil)}
		check(t, c, nil, "")
	})
	t.Run("debuglink-debug-dir", func(t *testing.T) {
		t.Parallel()
		exe := privateCopy(t, buildProgram(t, "null-stripped-debuglink"))
		debugDir := filepath.Join(t.TempDir(), "debug")
		copyFile(t, filepath.Join(filepath.Dir(buildProgram(t, "null-stripped-debuglink")), "nullderef.debug"),
			filepath.Join(debugDir, filepath.Dir(exe), "nullderef.debug"))
		c := &crashCase{crash: crashProgram(t, exe, nil)}
		check(t, c, []string{"--debug-dir", debugDir, "--debug-dir", "/usr/lib/debug"}, debugDir)
	})
}

// pid returns the crashed process's pid as gdb sees it (the thread whose
// tid is the smallest is the main thread for these single-threaded cases).
func (c *crashCase) pid(t *testing.T) int {
	t.Helper()
	best := 0
	for tid := range c.GDB {
		if best == 0 || tid < best {
			best = tid
		}
	}
	return best
}

// sharedLibraries lists the files the dynamic loader maps for exe (ldd),
// each with the symlink-free path too: cores name the files as mapped.
func sharedLibraries(t *testing.T, exe string) []string {
	t.Helper()
	out, err := exec.Command("ldd", exe).Output()
	if err != nil {
		t.Fatalf("ldd %s: %v", exe, err)
	}
	var libs []string
	re := regexp.MustCompile(`(/\S+) \(0x`)
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			libs = append(libs, m[1])
			if real, err := filepath.EvalSymlinks(m[1]); err == nil && real != m[1] {
				libs = append(libs, real)
			}
		}
	}
	if len(libs) == 0 {
		t.Fatalf("ldd found no libraries for %s:\n%s", exe, out)
	}
	return libs
}

// TestSysroot: the executable is moved away after the crash; a copy of it
// and its libraries under --sysroot, at their original paths, is all
// coreunwind has.
func TestSysroot(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "ldd")
	exe := privateCopy(t, buildProgram(t, "null-pie"))
	c := &crashCase{crash: crashProgram(t, exe, nil)}
	c.references(t)
	sysroot := filepath.Join(t.TempDir(), "sysroot")
	for _, f := range append(sharedLibraries(t, exe), exe) {
		copyFile(t, f, filepath.Join(sysroot, f))
	}
	if err := os.Rename(exe, exe+".moved"); err != nil {
		t.Fatal(err)
	}
	c.Report, c.Run = unwindJSON(t, []string{"--sysroot", sysroot}, c.Core)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	th := c.crashed(t)
	expectFunctions(t, th, "store_through", "middle", "outer", "main", "__libc_start_call_main")
	c.expectLines(t, th, "store_through", "middle", "outer", "main")
	for _, m := range c.Report.Modules {
		if !m.Found && !strings.Contains(m.Path, "vdso") && !strings.HasPrefix(m.Path, "[") {
			t.Errorf("module %s not found under --sysroot %s", m.Path, sysroot)
		}
	}
	for _, w := range c.Report.Warnings {
		t.Logf("warning: %s", w)
	}
}

// TestTextOutput: the default text report names the signal and prints
// gdb-like "#N  0xPC in FUNC (...) at FILE:LINE" lines.
func TestTextOutput(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "null-O0")
	c := &crashCase{crash: crashProgram(t, exe, nil)}
	c.GDB, c.GDBOut = runGDB(t, c.Exe, c.Core)
	r := runCoreunwind(t, c.Core, c.Exe)
	if r.Code != exitOK {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "SIGSEGV") {
		t.Errorf("text report does not name SIGSEGV:\n%s", truncate(r.Stdout, 3000))
	}
	g := c.GDB[c.pid(t)]
	if g == nil {
		t.Fatalf("gdb shows no thread %d", c.pid(t))
	}
	// gdb's first frames, in order, each as a line of the text report.
	rest := r.Stdout
	for i, gf := range g.Frames[:min(4, len(g.Frames))] {
		pat := fmt.Sprintf(`(?m)^#%d\s+0x0*%x in %s \(.*\)(?: at (\S+):(\d+))?`, i, gf.PC, regexp.QuoteMeta(gf.Func))
		m := regexp.MustCompile(pat).FindStringSubmatchIndex(rest)
		if m == nil {
			t.Errorf("no line like gdb's %q in the text report after the previous frame:\n%s", gf.Raw, truncate(r.Stdout, 3000))
			break
		}
		if m[2] >= 0 {
			file, line := rest[m[2]:m[3]], rest[m[4]:m[5]]
			if filepath.Base(file) != filepath.Base(gf.File) || line != fmt.Sprint(gf.Line) {
				t.Errorf("frame %d: text report says %s:%s, gdb says %s:%d", i, file, line, gf.File, gf.Line)
			}
		} else if gf.File != "" {
			t.Errorf("frame %d: text report has no file:line; gdb: %s", i, gf.Raw)
		}
		rest = rest[m[1]:]
	}
}

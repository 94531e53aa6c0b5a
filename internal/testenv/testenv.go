// Package testenv builds and crashes programs for tests: the tools they
// need (a missing tool skips a test, or fails it when CI=true), compilers,
// and kernel cores written by real crashes. Tests only.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// NeedTool returns the path of an external tool. When it is missing the
// test skips, or fails when the environment says CI=true: CI must never
// pass a test by not running it.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Unavailable(t, name+" is not installed: "+err.Error())
	}
	return p
}

// Unavailable skips the test for reason, or fails it under CI=true.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("required in CI: %s", reason)
	}
	t.Skip(reason)
}

// NeedCores makes sure the kernel writes a core named "core" into the
// crashing process's working directory.
func NeedCores(t testing.TB) {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	if p := strings.TrimSpace(string(b)); err != nil || p != "core" {
		Unavailable(t, `kernel core_pattern is "`+p+`", want "core"`)
	}
}

// Build runs a compiler (gcc, g++, ...) with args; out is the output
// file, placed by the caller.
func Build(t testing.TB, compiler string, args ...string) {
	t.Helper()
	NeedTool(t, compiler)
	if b, err := exec.Command(compiler, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, b)
	}
}

// BuildC compiles the C source text src into dir/name with gcc flags.
func BuildC(t testing.TB, dir, name, src string, flags ...string) string {
	t.Helper()
	srcPath := filepath.Join(dir, name+".c")
	if err := os.WriteFile(srcPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	Build(t, "gcc", append(append([]string{"-o", out, srcPath}, flags...), "-lpthread")...)
	return out
}

// Crash runs prog with args in its directory under "ulimit -c
// unlimited", expects it to die by a signal, and returns the path of the
// core the kernel wrote (renamed to core.<name> so that several programs
// can share a directory) and what the program printed.
func Crash(t testing.TB, prog string, args ...string) (core string, output []byte) {
	t.Helper()
	NeedCores(t)
	dir := filepath.Dir(prog)
	raw := filepath.Join(dir, "core")
	os.Remove(raw)
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -c unlimited; exec ./"$0" "$@"`, filepath.Base(prog)}, args...)...)
	cmd.Dir = dir
	output, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s did not crash; it printed:\n%s", prog, output)
	}
	// The kernel finishes writing the core before the parent's wait
	// returns; allow for slow file systems anyway.
	for i := 0; i < 50; i++ {
		if _, err := os.Stat(raw); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	core = filepath.Join(dir, "core."+filepath.Base(prog))
	if err := os.Rename(raw, core); err != nil {
		t.Fatalf("%s crashed (%v) but left no core: %v", prog, err, err)
	}
	return core, output
}

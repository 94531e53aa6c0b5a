// Package testenv builds and crashes programs for tests: the tools they
// need (a missing tool skips a test, or fails it when CI=true), compilers,
// and kernel cores written by real crashes. Tests only.
package testenv

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// CrashIn runs exe with args in dir under "ulimit -c unlimited" (env
// entries added to the environment), expects it to die of a signal with
// a core dump within a minute, and returns the path of the core the
// kernel wrote there ("core") and what the program printed.
func CrashIn(t testing.TB, dir, exe string, env []string, args ...string) (core string, output []byte) {
	t.Helper()
	return CrashWithin(t, time.Minute, dir, exe, env, args...)
}

// CrashWithin is CrashIn for a program that takes up to limit to crash
// (one that must wait for the runtime's clock).
func CrashWithin(t testing.TB, limit time.Duration, dir, exe string, env []string, args ...string) (core string, output []byte) {
	t.Helper()
	NeedCores(t)
	core = filepath.Join(dir, "core")
	os.Remove(core)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `ulimit -c unlimited; exec "$0" "$@"`, exe}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	output, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not crash within %v; it printed:\n%s", exe, limit, output)
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		t.Fatalf("%s was expected to crash, got err=%v; it printed:\n%s", exe, err, output)
	}
	if ws, ok := exitErr.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || !ws.CoreDump() {
		t.Fatalf("%s: expected death by a signal with a core dump, got %v; it printed:\n%s", exe, exitErr, output)
	}
	WaitForCore(t, core)
	return core, output
}

// WaitForCore waits until the core exists and its size stops changing.
// The kernel writes a file core before the parent can reap the process,
// so this normally returns at once; the loop covers slow file systems.
func WaitForCore(t testing.TB, path string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	last := int64(-1)
	for time.Now().Before(deadline) {
		fi, err := os.Stat(path)
		if err == nil && fi.Size() > 0 && fi.Size() == last {
			return
		}
		if err == nil {
			last = fi.Size()
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no core file at %s after the crash (core_pattern must be \"core\")", path)
}

// Crash runs prog with args in its own directory (CrashIn) and returns
// its core renamed to core.<name>, so that several programs can share a
// directory, and what the program printed.
func Crash(t testing.TB, prog string, args ...string) (core string, output []byte) {
	t.Helper()
	dir := filepath.Dir(prog)
	raw, output := CrashIn(t, dir, "./"+filepath.Base(prog), nil, args...)
	core = filepath.Join(dir, "core."+filepath.Base(prog))
	if err := os.Rename(raw, core); err != nil {
		t.Fatal(err)
	}
	return core, output
}

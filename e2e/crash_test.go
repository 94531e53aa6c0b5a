package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A crash is a program that died with a core dump.
type crash struct {
	Dir  string // the working directory the program ran in
	Exe  string // the executable that crashed
	Core string // the core the kernel wrote
	// Output is what the program printed (stdout and stderr) before it
	// died: glibc's and libstdc++'s own words about the crash.
	Output string
}

// crashProgram runs exe with args in a fresh temporary directory under
// `ulimit -c unlimited` and returns the core it leaves there. The program
// must die of a signal; env entries are added to the environment.
func crashProgram(t *testing.T, exe string, env []string, args ...string) crash {
	t.Helper()
	requireCorePattern(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	shArgs := append([]string{"-c", `ulimit -c unlimited; exec "$0" "$@"`, exe}, args...)
	cmd := exec.CommandContext(ctx, "sh", shArgs...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not crash within 60s; output:\n%s", exe, out)
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		t.Fatalf("%s was expected to crash, got err=%v; output:\n%s", exe, err, out)
	}
	ws, ok := exitErr.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || !ws.CoreDump() {
		t.Fatalf("%s: expected death by signal with a core dump, got %v; output:\n%s", exe, exitErr, out)
	}
	core := filepath.Join(dir, "core")
	waitForCore(t, core)
	return crash{Dir: dir, Exe: exe, Core: core, Output: string(out)}
}

// waitForCore waits until the core exists and its size stops changing. The
// kernel writes a file core before the parent can reap the process, so this
// normally returns at once; the loop covers slow file systems.
func waitForCore(t *testing.T, path string) {
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

package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/refbt"
)

// gdbArgs makes gdb print every frame's pc (frame 0 and inlined frames
// included, via -frame-info location-and-address), unwind past main and
// _start like the other tools, and never wrap or page.
func gdbArgs(exe, core string, extra ...string) []string {
	args := []string{"-batch", "-nx"}
	args = append(args, extra...)
	args = append(args,
		"-ex", "set backtrace past-main on",
		"-ex", "set backtrace past-entry on",
		"-ex", "set pagination off",
		"-ex", "set width 0",
		"-ex", "set print address on",
		"-ex", "thread apply all bt -frame-info location-and-address",
		exe, core)
	return args
}

// runGDB returns gdb's backtraces of every thread, keyed by tid. extra are
// options placed before the files (e.g. -iex 'set sysroot ...').
func runGDB(t *testing.T, exe, core string, extra ...string) (map[int]*refbt.Thread, string) {
	t.Helper()
	gdb := requireTool(t, "gdb")
	out := runTool(t, gdb, gdbArgs(exe, core, extra...)...)
	threads := refbt.ParseGDB(out)
	if len(threads) == 0 {
		t.Fatalf("gdb printed no threads for %s:\n%s", core, out)
	}
	return threads, out
}

// runEuStack returns eu-stack's backtraces (-i inlined frames, -s source
// lines, -a addresses) of every thread, keyed by tid.
func runEuStack(t *testing.T, exe, core string, extra ...string) (map[int]*refbt.Thread, string) {
	t.Helper()
	eu := requireTool(t, "eu-stack")
	args := append([]string{"--core=" + core, "-e", exe, "-i", "-s", "-a"}, extra...)
	out := runTool(t, eu, args...)
	threads := refbt.ParseEuStack(out)
	if len(threads) == 0 {
		t.Fatalf("eu-stack printed no threads for %s:\n%s", core, out)
	}
	return threads, out
}

// runTool runs a reference tool and returns stdout. Reference tools exit
// non-zero when one thread's unwinding ends in an error, so the exit code is
// ignored; a timeout is fatal.
func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s timed out", name)
	}
	if stderr.Len() > 0 {
		t.Logf("%s stderr (first 1000 bytes): %s", name, truncate(stderr.String(), 1000))
	}
	return stdout.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

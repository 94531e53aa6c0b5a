package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
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
	return runGDBTool(t, "gdb", exe, core, extra...)
}

// runGDBTool is runGDB with another gdb binary (gdb-multiarch for cores
// of other architectures).
func runGDBTool(t *testing.T, tool, exe, core string, extra ...string) (map[int]*refbt.Thread, string) {
	t.Helper()
	gdb := testenv.NeedTool(t, tool)
	out := runTool(t, gdb, gdbArgs(exe, core, extra...)...)
	threads := refbt.ParseGDB(out)
	if len(threads) == 0 {
		t.Fatalf("gdb printed no threads for %s:\n%s", core, out)
	}
	return threads, out
}

// gdbEnds is what gdb says of a very deep stack's crashed thread without
// printing every frame: its innermost and outermost frames (with gdb's
// frame numbers, so the last one's Index+1 is the depth) and the value of
// an integer variable of the program.
type gdbEnds struct {
	Inner, Outer []refbt.Frame
	Var          uint64
}

// runGDBEnds asks gdb for the n innermost and n outermost frames of the
// crashed thread (bt n, bt -n) and prints variable. bt -n walks the whole
// stack but prints n frames: about 60 µs a frame (8 s for 130,000
// frames under load), where printing every frame takes minutes.
func runGDBEnds(t *testing.T, exe, core string, n int, variable string) gdbEnds {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb")
	const mark = "--- coreunwind e2e: next command ---"
	bt := "bt -frame-info location-and-address -- "
	args := []string{"-batch", "-nx",
		"-ex", "set backtrace past-main on",
		"-ex", "set backtrace past-entry on",
		"-ex", "set pagination off",
		"-ex", "set width 0",
		"-ex", "set print address on",
		"-ex", "thread apply 1 " + bt + strconv.Itoa(n),
		"-ex", "echo " + mark + "\\n",
		"-ex", "thread apply 1 " + bt + strconv.Itoa(-n),
		"-ex", "echo " + mark + "\\n",
		"-ex", "print/d " + variable,
		exe, core}
	out := runTool(t, gdb, args...)
	parts := strings.Split(out, mark+"\n")
	if len(parts) != 3 {
		t.Fatalf("gdb's output is not in three parts:\n%s", truncate(out, 4000))
	}
	var ends gdbEnds
	for i, p := range parts[:2] {
		threads := refbt.ParseGDB(p)
		if len(threads) != 1 {
			t.Fatalf("gdb printed %d threads, want 1:\n%s", len(threads), truncate(out, 4000))
		}
		for _, th := range threads {
			if len(th.Frames) != n {
				t.Fatalf("gdb printed %d frames, want %d:\n%s", len(th.Frames), n, truncate(out, 4000))
			}
			if i == 0 {
				ends.Inner = th.Frames
			} else {
				ends.Outer = th.Frames
			}
		}
	}
	m := regexp.MustCompile(`(?m)^\$1 = (\d+)$`).FindStringSubmatch(parts[2])
	if m == nil {
		t.Fatalf("gdb did not print %s:\n%s", variable, truncate(parts[2], 2000))
	}
	ends.Var, _ = strconv.ParseUint(m[1], 10, 64)
	return ends
}

// runEuStack returns eu-stack's backtraces (-i inlined frames, -s source
// lines, -a addresses) of every thread, keyed by tid.
func runEuStack(t *testing.T, exe, core string, extra ...string) (map[int]*refbt.Thread, string) {
	t.Helper()
	eu := testenv.NeedTool(t, "eu-stack")
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
// ignored; a timeout is fatal. The bound is generous: `go tool pprof` is
// built on its first use with an empty Go cache (as in CI), and several
// parallel tests waiting for that build on a loaded two-core machine took
// over two minutes.
func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, ok := runToolWithin(t, 10*time.Minute, name, args...)
	if !ok {
		t.Fatalf("%s timed out", name)
	}
	return out
}

// runToolWithin is runTool with a time limit of its own; ok is false
// when the tool ran out of it (and was killed).
func runToolWithin(t *testing.T, limit time.Duration, name string, args ...string) (out string, ok bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if stderr.Len() > 0 {
		t.Logf("%s stderr (first 1000 bytes): %s", name, truncate(stderr.String(), 1000))
	}
	return stdout.String(), ctx.Err() == nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

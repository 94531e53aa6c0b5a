package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A refFrame is one frame as a reference tool (gdb or eu-stack) prints it.
type refFrame struct {
	Index int
	PC    uint64
	HasPC bool   // false for gdb's "<signal handler called>" and inlined frames without address
	Func  string // as printed, without arguments; "" when the tool has no name
	File  string
	Line  int
	Raw   string // the tool's line(s), for failure messages
}

// A refThread is one thread's backtrace from a reference tool.
type refThread struct {
	TID    int
	Frames []refFrame
}

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
func runGDB(t *testing.T, exe, core string, extra ...string) (map[int]*refThread, string) {
	t.Helper()
	return runGDBTool(t, "gdb", exe, core, extra...)
}

// runGDBTool is runGDB with another gdb binary (gdb-multiarch for cores
// of other architectures).
func runGDBTool(t *testing.T, tool, exe, core string, extra ...string) (map[int]*refThread, string) {
	t.Helper()
	gdb := requireTool(t, tool)
	out := runTool(t, gdb, gdbArgs(exe, core, extra...)...)
	threads := parseGDB(out)
	if len(threads) == 0 {
		t.Fatalf("gdb printed no threads for %s:\n%s", core, out)
	}
	return threads, out
}

// runEuStack returns eu-stack's backtraces (-i inlined frames, -s source
// lines, -a addresses) of every thread, keyed by tid.
func runEuStack(t *testing.T, exe, core string, extra ...string) (map[int]*refThread, string) {
	t.Helper()
	eu := requireTool(t, "eu-stack")
	args := append([]string{"--core=" + core, "-e", exe, "-i", "-s", "-a"}, extra...)
	out := runTool(t, eu, args...)
	threads := parseEuStack(out)
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

var (
	gdbThreadRE = regexp.MustCompile(`^Thread \d+ .*\bLWP (\d+)\)`)
	gdbFrameRE  = regexp.MustCompile(`^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(.*)$`)
	gdbAtRE     = regexp.MustCompile(` at (\S+):(\d+)$`)
	euThreadRE  = regexp.MustCompile(`^TID (\d+):`)
	euFrameRE   = regexp.MustCompile(`^#(\d+)\s+0x([0-9a-f]+)\s+(?:- 1\s+)?(.*)$`)
	euSourceRE  = regexp.MustCompile(`^\s+(\S+?):(\d+)(?::\d+)?$`)
)

// parseGDB reads the output of "thread apply all bt". Only lines inside a
// "Thread N (... LWP tid)" section count; gdb repeats frame 0 of the
// current thread before the sections, which is ignored.
func parseGDB(out string) map[int]*refThread {
	threads := map[int]*refThread{}
	var cur *refThread
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := gdbThreadRE.FindStringSubmatch(line); m != nil {
			tid, _ := strconv.Atoi(m[1])
			cur = &refThread{TID: tid}
			threads[tid] = cur
			continue
		}
		m := gdbFrameRE.FindStringSubmatch(line)
		if m == nil || cur == nil {
			continue
		}
		f := refFrame{Raw: line}
		f.Index, _ = strconv.Atoi(m[1])
		if m[2] != "" {
			f.PC, _ = strconv.ParseUint(m[2][2:], 16, 64)
			f.HasPC = true
		}
		rest := m[3]
		if strings.HasPrefix(rest, "<") { // <signal handler called>
			f.Func = ""
		} else if i := strings.Index(rest, " ("); i >= 0 {
			f.Func = rest[:i]
		} else {
			f.Func = rest
		}
		if f.Func == "??" {
			f.Func = ""
		}
		if a := gdbAtRE.FindStringSubmatch(rest); a != nil {
			f.File = a[1]
			f.Line, _ = strconv.Atoi(a[2])
		}
		cur.Frames = append(cur.Frames, f)
	}
	return threads
}

// parseEuStack reads "eu-stack -i -s -a" output: "TID n:" sections, frame
// lines "#N  0xpc [- 1] name" and an indented "file:line:col" line.
func parseEuStack(out string) map[int]*refThread {
	threads := map[int]*refThread{}
	var cur *refThread
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := euThreadRE.FindStringSubmatch(line); m != nil {
			tid, _ := strconv.Atoi(m[1])
			cur = &refThread{TID: tid}
			threads[tid] = cur
			continue
		}
		if cur == nil {
			continue
		}
		if m := euFrameRE.FindStringSubmatch(line); m != nil {
			f := refFrame{Raw: line, HasPC: true}
			f.Index, _ = strconv.Atoi(m[1])
			f.PC, _ = strconv.ParseUint(m[2], 16, 64)
			f.Func = strings.TrimSpace(m[3])
			cur.Frames = append(cur.Frames, f)
			continue
		}
		if m := euSourceRE.FindStringSubmatch(line); m != nil && len(cur.Frames) > 0 {
			f := &cur.Frames[len(cur.Frames)-1]
			f.File = m[1]
			f.Line, _ = strconv.Atoi(m[2])
			f.Raw += " " + strings.TrimSpace(line)
		}
	}
	return threads
}

func (f refFrame) String() string {
	if f.Raw != "" {
		return f.Raw
	}
	return fmt.Sprintf("#%d 0x%x %s", f.Index, f.PC, f.Func)
}

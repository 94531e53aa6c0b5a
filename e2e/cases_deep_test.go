package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStackOverflow: mutual recursion a -> b -> a until the 8 MiB stack
// overflows, about 131,000 frames, walked whole by default (the old
// default limit of 4096 frames cut it). gdb judges: its 20 innermost and
// 20 outermost frames, numbered, give pcs, names and the depth; the
// program's own call counter, which gdb reads, confirms the depth.
// eu-stack is not asked: it takes many minutes on a stack this deep.
func TestStackOverflow(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "overflow")
	c := &crashCase{crash: crashProgram(t, exe, nil)}
	g := runGDBEnds(t, c.Exe, c.Core, 20, "calls")
	depth := g.Outer[len(g.Outer)-1].Index + 1
	if depth < 100_000 {
		t.Fatalf("gdb sees %d frames; the overflow should leave more than 100,000", depth)
	}
	c.Report, c.Run = unwindJSON(t, nil, c.Core, c.Exe)
	c.expectSignal(t, 11, "SIGSEGV")
	th := c.crashed(t)
	if th.Truncated || th.Error != nil || len(th.Frames) != depth {
		t.Fatalf("%d frames (truncated %v), gdb %d\n%s", len(th.Frames), th.Truncated, depth, formatFrames(th, 10))
	}
	for _, gf := range append(g.Inner, g.Outer...) {
		f := th.Frames[gf.Index]
		if pc, _ := f.pc(); pc != gf.PC || normalizeFunc(f.Function) != normalizeFunc(gf.Func) {
			t.Errorf("frame %d: coreunwind %s\n  gdb %s", gf.Index, f, gf.Raw)
		}
	}
	// Every call of a and b counted before the fault has its frame; the
	// faulting frame may be one more, stopped before it counted itself.
	recursion := 0
	for _, f := range th.Frames {
		if f.Function == "a" || f.Function == "b" {
			recursion++
		}
	}
	if recursion != int(g.Var) && recursion != int(g.Var)+1 {
		t.Errorf("%d frames of a and b; the program counted %d calls", recursion, g.Var)
	}

	t.Run("text-folds", func(t *testing.T) {
		r := runCoreunwind(t, c.Core, c.Exe)
		if r.Code != exitOK {
			t.Fatalf("exit code %d; stderr:\n%s", r.Code, r.Stderr)
		}
		lines := checkTextFrames(t, r.Stdout, th)
		if lines > 20 {
			t.Errorf("%d frame and fold lines for a two-frame cycle, want a handful:\n%s", lines, truncate(r.Stdout, 3000))
		}
	})
	t.Run("no-fold", func(t *testing.T) {
		r := runCoreunwind(t, "--no-fold", c.Core, c.Exe)
		if lines := checkTextFrames(t, r.Stdout, th); lines != depth {
			t.Errorf("--no-fold: %d lines, want one per frame (%d)", lines, depth)
		}
	})
	t.Run("max-frames", func(t *testing.T) {
		r := runCoreunwind(t, "--max-frames", "1000", c.Core, c.Exe)
		if !strings.Contains(r.Stdout, "(More stack frames follow...)") {
			t.Errorf("a limit the user set does not say that frames follow:\n%s", truncate(r.Stdout, 3000))
		}
	})
}

var (
	textFrameRE = regexp.MustCompile(`^#(\d+)\s+0x([0-9a-f]+) in `)
	textFoldRE  = regexp.MustCompile(`^    \[previous (?:frame|(\d+) frames) repeated ([\d,]+) more times\]$`)
)

// checkTextFrames reads the crashed thread's lines of a text report and
// checks them against the JSON report's frames: each printed frame has
// the pc of the frame with its number; a fold line stands for exactly
// the frames it skips, which repeat the printed cycle, and the numbering
// goes on after them. It returns the number of frame and fold lines.
func checkTextFrames(t *testing.T, text string, th *reportThread) int {
	t.Helper()
	start := strings.Index(text, "Thread "+strconv.Itoa(th.TID))
	if start < 0 {
		t.Fatalf("no thread %d in the text report", th.TID)
	}
	lines, next, cycle := 0, 0, 0 // next: the frame the next line must show; cycle: frames since the last fold
	for _, l := range strings.Split(text[start:], "\n")[1:] {
		if l == "" {
			break
		}
		if m := textFrameRE.FindStringSubmatch(l); m != nil {
			i, _ := strconv.Atoi(m[1])
			pc, _ := strconv.ParseUint(m[2], 16, 64)
			if i != next || i >= len(th.Frames) || th.Frames[i].PC != "0x"+strconv.FormatUint(pc, 16) {
				t.Fatalf("line %q: want frame #%d, %s", l, next, frameAt(th, next))
			}
			lines, next, cycle = lines+1, next+1, cycle+1
			continue
		}
		if m := textFoldRE.FindStringSubmatch(l); m != nil {
			n, more := 1, 0
			if m[1] != "" {
				n, _ = strconv.Atoi(m[1])
			}
			more, _ = strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
			if n > cycle || more < 2 || m[2] != groupThousands(more) {
				t.Fatalf("fold line %q after %d printed frames", l, cycle)
			}
			for k := next; k < next+n*more; k++ {
				if k >= len(th.Frames) || th.Frames[k].PC != th.Frames[k-n].PC || th.Frames[k].Function != th.Frames[k-n].Function {
					t.Fatalf("fold line %q: frame %d (%s) does not repeat frame %d", l, k, frameAt(th, k), k-n)
				}
			}
			lines, next, cycle = lines+1, next+n*more, 0
		}
	}
	if next != len(th.Frames) {
		t.Errorf("the text report shows frames up to #%d, the JSON report has %d", next-1, len(th.Frames))
	}
	return lines
}

func frameAt(th *reportThread, i int) string {
	if i < len(th.Frames) {
		return th.Frames[i].String()
	}
	return "(none)"
}

// groupThousands writes n as Python's "{:,}" does: 49,990.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestStackOverflowOnAltStack: a thread's stack overflow handled on a
// sigaltstack that lies above the thread's stack; the handler aborts.
// From the handler's frames to the interrupted recursion the stack
// pointer jumps toward younger addresses, which the unwinder allows only
// across a signal frame. gdb and eu-stack judge every frame.
func TestStackOverflowOnAltStack(t *testing.T) {
	t.Parallel()
	c := &crashCase{crash: crashProgram(t, buildProgram(t, "altstack"), nil)}
	c.references(t, "-n", "0") // eu-stack stops at 256 frames by default
	c.Report, c.Run = unwindJSON(t, nil, c.Core, c.Exe)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	c.expectSignal(t, 6, "SIGABRT")
	th := c.crashed(t)
	expectFunctions(t, th, "abort", "on_overflow", "__restore_rt", "recurse", "overflow_thread", "start_thread")
	if th.Error != nil {
		t.Errorf("walk stopped: %s", *th.Error)
	}
	handler, interrupted := frameOf(th, "on_overflow"), frameOf(th, "recurse")
	if handler == nil || interrupted == nil {
		t.Fatalf("no handler or recursion frame:\n%s", formatFrames(th, 12))
	}
	hsp, _ := parseHex(handler.SP)
	isp, _ := parseHex(interrupted.SP)
	if hsp <= isp {
		t.Errorf("handler sp %s is not above the interrupted frame's %s: the test does not cross the stack backwards", handler.SP, interrupted.SP)
	}
}

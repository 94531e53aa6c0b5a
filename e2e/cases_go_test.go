package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goparkedProgs are the builds of goparked the tests crash: the host's
// and i386's.
var goparkedProgs = []string{"goparked", "i386-goparked"}

// forEachGoparked runs check on each build of goparked, in parallel
// subtests named by the build.
func forEachGoparked(t *testing.T, check func(t *testing.T, prog string)) {
	for _, prog := range goparkedProgs {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			check(t, prog)
		})
	}
}

// crashGoparked crashes the goparked program built as prog ("goparked",
// "i386-goparked") in mode ("nilptr", "nilmap") with GOTRACEBACK=crash
// and returns the case with coreunwind's JSON report and the goroutines
// the runtime printed.
func crashGoparked(t *testing.T, prog, mode string) (*crashCase, []goDump) {
	t.Helper()
	exe := buildProgram(t, prog)
	c := &crashCase{crash: crashProgram(t, exe, []string{"GOTRACEBACK=crash"}, mode)}
	c.Report, c.Run = unwindJSON(t, nil, c.Core, c.Exe)
	gs := parseGoDump(c.Output)
	if len(gs) < 5 {
		t.Fatalf("the runtime printed %d goroutines, want at least 5; output:\n%s", len(gs), truncate(c.Output, 4000))
	}
	return c, gs
}

// runningGoroutine is the goroutine the runtime printed as running (the
// panicking one).
func runningGoroutine(t *testing.T, gs []goDump) *goDump {
	t.Helper()
	for i := range gs {
		if gs[i].Status == "running" {
			return &gs[i]
		}
	}
	t.Fatalf("the runtime printed no running goroutine")
	return nil
}

// TestGoSigpanicLine: a nil pointer dereference enters runtime.sigpanic
// through a call the signal handler fakes, with the faulting pc as the
// return address. The faulting frame's pc is exact: its line is the
// faulting instruction's (the runtime's traceback and go tool addr2line
// say which), not the one before it, and its caller is found by CFI from
// there, not by a stack scan.
func TestGoSigpanicLine(t *testing.T) {
	t.Parallel()
	forEachGoparked(t, goSigpanicLine)
}

func goSigpanicLine(t *testing.T, prog string) {
	c, gs := crashGoparked(t, prog, "nilptr")
	g := runningGoroutine(t, gs)
	th := c.crashed(t)
	for _, fn := range []string{"main.deref", "main.main"} {
		want := g.frame(fn)
		if want == nil {
			t.Fatalf("the runtime's traceback has no %s; output:\n%s", fn, truncate(c.Output, 4000))
		}
		f := frameOf(th, fn)
		if f == nil {
			t.Fatalf("coreunwind has no frame for %s:\n%s", fn, formatFrames(th, 40))
		}
		pc, _ := f.pc()
		if pc != want.PC || filepath.Base(f.File) != filepath.Base(want.File) || f.Line != want.Line {
			t.Errorf("%s: coreunwind says pc %#x %s:%d, the runtime pc %#x %s:%d\n%s",
				fn, pc, f.File, f.Line, want.PC, want.File, want.Line, formatFrames(th, 40))
		}
		if f.Trust == "scan" {
			t.Errorf("%s found by stack scan:\n%s", fn, formatFrames(th, 40))
		}
	}
	// go tool addr2line takes the faulting pc as is.
	f := frameOf(th, "main.deref")
	cmd := exec.Command(goTool(), "tool", "addr2line", c.Exe)
	cmd.Stdin = strings.NewReader(f.PC + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool addr2line: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[0] != "main.deref" {
		t.Fatalf("go tool addr2line %s: %q", f.PC, out)
	}
	if want := fmt.Sprintf("%s:%d", f.File, f.Line); lines[1] != want {
		t.Errorf("go tool addr2line %s: %s, coreunwind %s", f.PC, lines[1], want)
	}
}

// TestGoThreadsEnd: every thread of a Go program ends its stack where
// the Go runtime and gdb do (runtime.goexit, runtime.mcall, runtime.clone
// above runtime.mstart): no thread is partial, and the report exits 0.
func TestGoThreadsEnd(t *testing.T) {
	t.Parallel()
	forEachGoparked(t, goThreadsEnd)
}

func goThreadsEnd(t *testing.T, prog string) {
	c, _ := crashGoparked(t, prog, "nilmap")
	if c.Run.Code != exitOK {
		t.Errorf("exit code %d, want %d; stderr:\n%s", c.Run.Code, exitOK, truncate(c.Run.Stderr, 4000))
	}
	for i := range c.Report.Threads {
		th := &c.Report.Threads[i]
		if th.Error != nil {
			t.Errorf("thread %d stopped early:\n%s", th.TID, formatFrames(th, 40))
		}
		// A thread runtime.clone started, or the first thread,
		// started by runtime.rt0_go.
		if frameOf(th, "runtime.mstart") != nil {
			if last := normalizeFunc(th.Frames[len(th.Frames)-1].Function); last != "runtime.clone" && last != "runtime.rt0_go" {
				t.Errorf("thread %d started by runtime.mstart ends in %s, want runtime.clone or runtime.rt0_go (as gdb):\n%s",
					th.TID, last, formatFrames(th, 40))
			}
		}
	}
	r := runCoreunwind(t, c.Core, c.Exe)
	if r.Code != exitOK {
		t.Errorf("text report: exit code %d, want %d; stderr:\n%s", r.Code, exitOK, truncate(r.Stderr, 4000))
	}
}

// TestGoBuildID: a Go 1.24+ executable has a GNU build ID outside its
// PT_NOTE segment, which holds only the Go build ID; the core's copy of
// the headers then has no GNU build ID. The Go build ID verifies the
// executable (no "unverified" warning) and refuses another build of it.
func TestGoBuildID(t *testing.T) {
	t.Parallel()
	c, _ := crashGoparked(t, "goparked", "nilmap")
	exeModule := func(r *report) *module {
		for i := range r.Modules {
			if filepath.Base(r.Modules[i].Path) == "goparked" {
				return &r.Modules[i]
			}
		}
		t.Fatalf("no module goparked in the report")
		return nil
	}
	for _, w := range c.Report.Warnings {
		if strings.Contains(w, "goparked") {
			t.Errorf("warning about the right executable: %s", w)
		}
	}
	if m := exeModule(c.Report); !m.Found {
		t.Errorf("the executable was not used: %+v", m)
	}
	// Another build named on the command line is refused (the file at
	// the path the core records, the right one, is used instead).
	other := buildProgram(t, "goparked-variant")
	rep, _ := unwindJSON(t, nil, c.Core, other)
	refused := false
	for _, w := range rep.Warnings {
		refused = refused || strings.Contains(w, "Go build ID") && strings.Contains(w, "differs") && strings.Contains(w, other)
		if strings.Contains(w, "unverified") {
			t.Errorf("warning: %s", w)
		}
	}
	if !refused {
		t.Errorf("no warning that %s has another Go build ID: %q", other, rep.Warnings)
	}
}

// TestGoroutines: coreunwind's goroutines are the runtime's own, as its
// GOTRACEBACK=crash output printed them in the same run: the same ids
// and states, and each goroutine's frames, function, line and pc, in
// order (coreunwind may show more: the running goroutine's frames from
// the crash on down, which the runtime leaves out).
func TestGoroutines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ prog, mode string }{
		{"goparked", "nilptr"}, {"goparked", "nilmap"}, {"i386-goparked", "nilptr"},
	} {
		t.Run(tc.prog+"-"+tc.mode, func(t *testing.T) {
			t.Parallel()
			c, gs := crashGoparked(t, tc.prog, tc.mode)
			expectRuntimeGoroutines(t, c.Report, c.Output, gs)
			chanReceive := 0
			for i := range c.Report.Goroutines {
				g := &c.Report.Goroutines[i]
				if g.State == "chan receive" && frameOfGoroutine(g, "main.worker") != nil {
					chanReceive++
				}
			}
			if chanReceive != 3 {
				t.Errorf("%d main.worker goroutines in chan receive, want 3", chanReceive)
			}
			// The text report prints them in the runtime's style.
			r := runCoreunwind(t, c.Core, c.Exe)
			for _, want := range []string{"goroutine 1 [running]", "[chan receive]:\nruntime.gopark(...)\n"} {
				if !strings.Contains(r.Stdout, want) {
					t.Errorf("text report lacks %q:\n%s", want, truncate(r.Stdout, 6000))
				}
			}
		})
	}
}

// frameOfGoroutine returns the goroutine's first frame in fn, nil if none.
func frameOfGoroutine(g *reportGoroutine, fn string) *reportFrame {
	for i := range g.Frames {
		if g.Frames[i].Function == fn {
			return &g.Frames[i]
		}
	}
	return nil
}

// compareGoroutineFrames checks that the runtime's frames of a goroutine
// are among coreunwind's, in order, with the same file, line and pc.
func compareGoroutineFrames(t *testing.T, want goDump, g *reportGoroutine) {
	t.Helper()
	k := 0
	for _, wf := range want.Frames {
		fn := wf.Func
		if fn == "panic" {
			fn = "runtime.gopanic" // the runtime prints gopanic as panic
		}
		for k < len(g.Frames) && g.Frames[k].Function != fn {
			k++
		}
		if k == len(g.Frames) {
			t.Errorf("goroutine %d: no frame %s (in order); coreunwind's:\n%s", want.ID, fn, formatGoroutine(g))
			return
		}
		f := g.Frames[k]
		pc, _ := f.pc()
		if filepath.Base(f.File) != filepath.Base(wf.File) || f.Line != wf.Line || (wf.PC != 0 && pc != wf.PC) {
			t.Errorf("goroutine %d: %s at %s:%d pc %#x, the runtime says %s:%d pc %#x",
				want.ID, fn, f.File, f.Line, pc, wf.File, wf.Line, wf.PC)
		}
		k++
	}
}

func formatGoroutine(g *reportGoroutine) string {
	var b strings.Builder
	for _, f := range g.Frames {
		fmt.Fprintf(&b, "    %s\n", f)
	}
	return b.String()
}

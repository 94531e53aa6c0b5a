package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

// TestCxxException: an uncaught C++ exception: __cxa_throw ->
// std::terminate -> abort.
func TestCxxException(t *testing.T) {
	t.Parallel()
	c := crashAndUnwind(t, "exception", nil, nil)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	c.expectSignal(t, 6, "SIGABRT")
	th := c.crashed(t)
	expectFunctions(t, th, "abort", "std::terminate", "__cxa_throw", "shop::Basket::checkout", "shop::process", "main")
	c.expectLines(t, th, "shop::Basket::checkout", "shop::process", "main")
	cr := c.crashInfo(t)
	if cr.ExceptionType == nil || *cr.ExceptionType != "std::runtime_error" {
		t.Errorf("exception type %v, want std::runtime_error", strptr(cr.ExceptionType))
	}
	checkWhat(t, crashKind{}, cr.ExceptionMessage, cr.Details, c.Output)
}

// TestCxxInline: at -O2 the faulting load sits in functions inlined into
// outer_call; gdb shows several frames at one pc. coreunwind must show the
// same frames, position by position, with gdb's names, pcs, files and
// lines, and mark the inlined ones.
func TestCxxInline(t *testing.T) {
	t.Parallel()
	c := crashAndUnwind(t, "inline", nil, nil)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	th := c.crashed(t)
	if sameFramesAsGDB(t, c, th, "inline.cc") == 0 {
		t.Errorf("gdb shows no inlined frame; the test program no longer tests inlining:\n%s", c.GDBOut)
	}
	expectFunctions(t, th, "geo::scaled", "geo::outer_call", "main")
}

// sameFramesAsGDB checks the crashed thread's frames in the program's
// own source files (from frame 0 to the first frame elsewhere) against
// gdb's, position by position: name, pc, file, line and whether the frame
// is inlined. It returns how many inlined frames gdb shows there.
func sameFramesAsGDB(t *testing.T, c *crashCase, th *reportThread, files ...string) (inlined int) {
	t.Helper()
	g := c.GDB[th.TID]
	if g == nil {
		t.Fatalf("gdb has no thread %d", th.TID)
	}
	// The chain starts at frame 0 in both tools, so indexes line up.
	for i, gf := range g.Frames {
		if !slices.Contains(files, filepath.Base(gf.File)) {
			break
		}
		if i >= len(th.Frames) {
			t.Errorf("coreunwind has no frame %d; gdb: %s", i, gf.Raw)
			break
		}
		f := th.Frames[i]
		pc, _ := f.pc()
		if normalizeFunc(f.Function) != normalizeFunc(gf.Func) || pc != gf.PC ||
			filepath.Base(f.File) != filepath.Base(gf.File) || f.Line != gf.Line {
			t.Errorf("frame %d differs:\n  gdb:        %s\n  coreunwind: %s", i, gf.Raw, f)
		}
		// gdb gives an inlined frame the pc of the frame it is inlined into.
		wantInlined := i+1 < len(g.Frames) && g.Frames[i+1].PC == gf.PC
		if wantInlined {
			inlined++
		}
		if f.Inlined != wantInlined {
			t.Errorf("frame %d inlined = %v, want %v (gdb: %s)", i, f.Inlined, wantInlined, gf.Raw)
		}
	}
	return inlined
}

// TestRustPanic: a Rust panic with panic=abort goes through std's panic
// machinery into abort().
func TestRustPanic(t *testing.T) {
	t.Parallel()
	c := crashAndUnwind(t, "rust-panic", nil, nil)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	c.expectSignal(t, 6, "SIGABRT")
	th := c.crashed(t)
	expectFunctions(t, th, "abort", "rustcrash::check_order", "rustcrash::place_order", "rustcrash::main")
	c.expectLines(t, th, "rustcrash::check_order", "rustcrash::place_order")
	cr := c.crashInfo(t)
	if cr.Kind != "rust_panic" {
		t.Errorf("crash kind %q (%s), want rust_panic", cr.Kind, cr.Summary)
	}
	checkPanic(t, cr, c.Output)
}

// crashInfo is the crash analysis of the case's JSON report.
func (c *crashCase) crashInfo(t *testing.T) *crashAnalysis {
	t.Helper()
	var ci crashInfo
	if err := json.Unmarshal([]byte(c.Run.Stdout), &ci); err != nil {
		t.Fatal(err)
	}
	if ci.Crash == nil {
		t.Fatal("the report has no crash analysis")
	}
	return ci.Crash
}

// TestGoTraceback: a Go program dying with GOTRACEBACK=crash (SIGABRT from
// the runtime, several threads).
func TestGoTraceback(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"gocrash", "i386-gocrash"} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			goTraceback(t, prog)
		})
	}
}

func goTraceback(t *testing.T, prog string) {
	c := crashAndUnwind(t, prog, []string{"GOTRACEBACK=crash"}, nil)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	c.expectSignal(t, 6, "SIGABRT")
	if len(c.Report.Threads) < 2 {
		t.Errorf("%d threads, want several", len(c.Report.Threads))
	}
	if len(c.Report.Threads) != len(c.GDB) {
		t.Errorf("coreunwind reports %d threads, gdb %d", len(c.Report.Threads), len(c.GDB))
	}
	// The panicking goroutine's frames are on some thread's stack (the
	// runtime may switch stacks for the crash, so look in every thread).
	for _, th := range c.Report.Threads {
		if frameOf(&th, "main.explode") != nil {
			expectFunctions(t, &th, "main.explode", "main.trigger", "main.main")
			return
		}
	}
	t.Errorf("no thread shows main.explode; crashed thread:\n%s", formatFrames(c.crashed(t), 60))
}

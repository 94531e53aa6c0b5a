package e2e

import (
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
)

func init() {
	programs["gocgo"] = goBuild("gocgo", "")
}

// TestGoCgoCrash: a Go program dies of a NULL store in C code it
// called (c_middle calls c_leaf) with GOTRACEBACK=crash. The crashed
// thread's C frames are gdb's; past runtime.asmcgocall, where the call
// switched to the system stack, the thread continues with the frames of
// the goroutine that made the call, which are the runtime's own
// traceback of it (it prints only them); that goroutine's report starts
// with the thread's C frames. Every other goroutine is the runtime's too,
// and the walk ends cleanly (exit 0).
func TestGoCgoCrash(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "gocgo")
	c := crashProgram(t, exe, []string{"GOTRACEBACK=crash"}, "c")
	rep, run := unwindJSON(t, nil, c.Core, c.Exe)
	gs := parseGoDump(c.Output)
	if len(gs) < 3 {
		t.Fatalf("the runtime printed %d goroutines; output:\n%s", len(gs), truncate(c.Output, 4000))
	}
	expectRuntimeGoroutines(t, rep, c.Output, gs)
	if run.Code != exitOK {
		t.Errorf("exit code %d, want %d; stderr:\n%s", run.Code, exitOK, truncate(run.Stderr, 4000))
	}
	th := rep.thread(rep.Core.CrashedTID)
	if th == nil {
		t.Fatalf("no crashed thread")
	}
	if th.Error != nil {
		t.Errorf("crashed thread: %s\n%s", *th.Error, formatFrames(th, 40))
	}
	// The C part, pc for pc as gdb walks it.
	gdb, gdbOut := runGDB(t, c.Exe, c.Core)
	var ref *refbt.Thread
	for _, g := range gdb {
		if refFrame(g, "c_leaf") != nil {
			ref = g
		}
	}
	if ref == nil {
		t.Fatalf("gdb shows no thread in c_leaf:\n%s", truncate(gdbOut, 4000))
	}
	for _, fn := range []string{"c_leaf", "c_middle"} {
		f, want := frameOf(th, fn), refFrame(ref, fn)
		if f == nil || want == nil {
			t.Fatalf("%s: coreunwind %v, gdb %v\n%s", fn, f, want, formatFrames(th, 40))
		}
		if pc, _ := f.pc(); pc != want.PC {
			t.Errorf("%s: pc %#x, gdb %#x", fn, pc, want.PC)
		}
	}
	// The Go part: after asmcgocall, exactly the runtime's frames of
	// the goroutine that called C (it prints inlined frames and
	// wrappers as coreunwind does).
	var g *reportGoroutine
	for i := range rep.Goroutines {
		if rep.Goroutines[i].ID == uint64(gs[0].ID) {
			g = &rep.Goroutines[i]
		}
	}
	if g == nil || g.TID == nil || *g.TID != th.TID {
		t.Fatalf("goroutine %d is not on the crashed thread %d: %+v", gs[0].ID, th.TID, g)
	}
	k := -1
	for i, f := range th.Frames {
		if normalizeFunc(f.Function) == "runtime.asmcgocall" {
			k = i
		}
	}
	if k < 0 || frameOf(th, "c_middle") == nil || frameOf(th, "c_middle").Index > th.Frames[k].Index {
		t.Fatalf("no runtime.asmcgocall after the C frames:\n%s", formatFrames(th, 40))
	}
	goPart := th.Frames[k+1:]
	if len(goPart) != len(gs[0].Frames) {
		t.Errorf("%d frames after asmcgocall, the runtime printed %d:\n%s", len(goPart), len(gs[0].Frames), formatFrames(th, 40))
	}
	for i := 0; i < len(goPart) && i < len(gs[0].Frames); i++ {
		f, want := goPart[i], gs[0].Frames[i]
		if f.Function != want.Func || filepath.Base(f.File) != filepath.Base(want.File) || f.Line != want.Line {
			t.Errorf("frame %d after asmcgocall: %s %s:%d, the runtime %s %s:%d", i, f.Function, f.File, f.Line, want.Func, want.File, want.Line)
		}
	}
	// The goroutine starts with the same C frames.
	if len(g.Frames) != len(th.Frames) || frameOfGoroutine(g, "c_leaf") == nil {
		t.Errorf("goroutine %d has %d frames, its thread %d; its frames:\n%s", g.ID, len(g.Frames), len(th.Frames), formatGoroutine(g))
	}
}

// refFrame is a reference thread's first frame in fn, nil if none.
func refFrame(th *refbt.Thread, fn string) *refbt.Frame {
	for i := range th.Frames {
		if th.Frames[i].Func == fn {
			return &th.Frames[i]
		}
	}
	return nil
}

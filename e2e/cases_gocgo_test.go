package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

func init() {
	programs["gocgo"] = goBuild("gocgo", "")
	a64cgo := goBuildEnv("gocgo", []string{"GOARCH=arm64", "CGO_ENABLED=1", "CC=" + testenv.AArch64.CC()})
	a64cgo.tools = append(a64cgo.tools, testenv.AArch64.CC())
	programs["arm64-gocgo"] = a64cgo
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
	gdb, out := runGDB(t, c.Exe, c.Core)
	var ref *refbt.Thread
	for _, g := range gdb {
		if refFrame(g, "c_leaf") != nil {
			ref = g
		}
	}
	if ref == nil {
		t.Fatalf("gdb shows no thread in c_leaf:\n%s", truncate(out, 4000))
	}
	want := map[string]uint64{}
	for _, fn := range []string{"c_leaf", "c_middle"} {
		if f := refFrame(ref, fn); f != nil {
			want[fn] = f.PC
		}
	}
	expectCgoCrash(t, c, want)
}

// TestGoCgoCrashAArch64 is TestGoCgoCrash on arm64, under qemu-user.
// gdb-multiarch stops at the runtime's signal handler (its unwind info
// ends the walk there): the reference for the C part is the faulting pc
// the runtime printed ("PC=0x...").
func TestGoCgoCrashAArch64(t *testing.T) {
	t.Parallel()
	c := qemuCrashEnv(t, testenv.AArch64, []string{"GOTRACEBACK=crash"}, "arm64-gocgo", "c")
	m := regexp.MustCompile(`(?m)^PC=0x([0-9a-f]+) `).FindStringSubmatch(c.Output)
	if m == nil {
		t.Fatalf("the runtime printed no faulting pc:\n%s", truncate(c.Output, 4000))
	}
	pc, _ := strconv.ParseUint(m[1], 16, 64)
	expectCgoCrash(t, c, map[string]uint64{"c_leaf": pc}, "--sysroot", testenv.AArch64.Sysroot())
}

// expectCgoCrash checks the report of c, a crash of gocgo in C code,
// against the runtime's output and the pcs of C functions' frames an
// independent tool gives (cPCs), coreunwind run with flags.
func expectCgoCrash(t *testing.T, c crash, cPCs map[string]uint64, flags ...string) {
	t.Helper()
	rep, run := unwindJSON(t, flags, c.Core, c.Exe)
	gs := parseGoDump(c.Output)
	if len(gs) < 3 {
		t.Fatalf("the runtime printed %d goroutines; output:\n%s", len(gs), truncate(c.Output, 4000))
	}
	expectRuntimeGoroutines(t, rep, c.Output, gs)
	if run.Code != exitOK {
		// The report says which thread was partial (one CI run, not
		// reproduced in 45 runs since).
		t.Errorf("exit code %d, want %d; stderr:\n%s\nreport:\n%s", run.Code, exitOK, truncate(run.Stderr, 4000), truncate(run.Stdout, 12000))
	}
	th := rep.thread(rep.Core.CrashedTID)
	if th == nil {
		t.Fatalf("no crashed thread")
	}
	if th.Error != nil {
		t.Errorf("crashed thread: %s\n%s", *th.Error, formatFrames(th, 40))
	}
	// The C part, pc for pc as the reference has it.
	for _, fn := range []string{"c_leaf", "c_middle"} {
		f := frameOf(th, fn)
		if f == nil {
			t.Fatalf("no frame %s:\n%s", fn, formatFrames(th, 40))
		}
		if want, ok := cPCs[fn]; ok {
			if pc, _ := f.pc(); pc != want {
				t.Errorf("%s: pc %#x, the reference %#x", fn, pc, want)
			}
		}
	}
	if len(cPCs) == 0 {
		t.Errorf("no reference pc for the C frames")
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
	// The crash is c_leaf's NULL store, which the runtime's handler
	// caught and re-raised: its signal frame is found past the Go
	// runtime's frames of the handler.
	var ci crashInfo
	if err := json.Unmarshal([]byte(run.Stdout), &ci); err != nil || ci.Crash == nil {
		t.Fatalf("no crash analysis: %v", err)
	}
	cr := ci.Crash
	if cr.Kind != "null_pointer" || cr.Reraised == nil || cr.Access == nil || cr.Access.Kind != "write" {
		t.Errorf("crash %q (kind %q, access %+v, reraised %v), want c_leaf's NULL store, re-raised", cr.Summary, cr.Kind, cr.Access, cr.Reraised != nil)
	} else if f := th.Frames[cr.Reraised.FaultFrame]; f.Function != "c_leaf" {
		t.Errorf("the re-raised fault's frame is %s, not c_leaf", f.Function)
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

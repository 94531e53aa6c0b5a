package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/pyruntime"
	"github.com/coreunwind/coreunwind/report"
)

// nativeFrames makes a thread's frames from names; a name ending in
// "+inl" is a call inlined into the next frame.
func nativeFrames(names ...string) []report.Frame {
	out := make([]report.Frame, len(names))
	for i, n := range names {
		name, inlined := strings.CutSuffix(n, "+inl")
		out[i] = report.Frame{Index: i, PC: report.Hex(0x1000 + i), Function: report.Ptr(name), Inlined: inlined}
	}
	return out
}

func pyFrames(spec ...string) []pyruntime.Frame {
	var out []pyruntime.Frame
	for _, s := range spec {
		name, entry := strings.CutSuffix(s, "!")
		out = append(out, pyruntime.Frame{Name: name, Qualname: name, File: "app.py", Line: 7, Entry: entry})
	}
	return out
}

// describe prints frames as "name" (native) and "py:name", with
// their indices checked.
func describe(t *testing.T, frames []report.Frame) string {
	var parts []string
	for i, f := range frames {
		if f.Index != i {
			t.Errorf("frame %d has index %d", i, f.Index)
		}
		p := *f.Function
		if f.Language == report.LanguagePython {
			p = "py:" + p
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

func TestSpliceThread(t *testing.T) {
	const eval = pyruntime.EvalFunction
	for _, tc := range []struct {
		name     string
		native   []string
		python   []string
		want     string
		unplaced int
		moved    map[int]int
	}{{
		name:   "two evaluator calls, the first running two frames, with an inlined call",
		native: []string{"crash", "x+inl", eval, "call", eval, "main"},
		python: []string{"inner", "middle!", "outer!"},
		want:   "crash py:inner py:middle call py:outer main",
		moved:  map[int]int{0: 0, 1: 1, 2: 1, 3: 3, 4: 4, 5: 5},
	}, {
		name:     "more runs than evaluator frames: the rest follow the stack",
		native:   []string{"crash", eval, "main"},
		python:   []string{"inner!", "outer!"},
		want:     "crash py:inner main py:outer",
		unplaced: 1,
		moved:    map[int]int{2: 2},
	}, {
		name:   "an evaluator frame with no run stays native",
		native: []string{eval, "c", eval},
		python: []string{"only!"},
		want:   "py:only c " + eval,
		moved:  map[int]int{1: 1, 2: 2},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			th := &report.Thread{Frames: nativeFrames(tc.native...)}
			moved, unplaced := spliceThread(th, pyFrames(tc.python...))
			if got := describe(t, th.Frames); got != tc.want {
				t.Errorf("frames %q, want %q", got, tc.want)
			}
			if unplaced != tc.unplaced {
				t.Errorf("%d unplaced, want %d", unplaced, tc.unplaced)
			}
			for old, want := range tc.moved {
				if got := moved(old); got != want {
					t.Errorf("frame %d moved to %d, want %d", old, got, want)
				}
			}
			for _, f := range th.Frames {
				if f.Language == report.LanguagePython && (f.Line == nil || *f.Line != 7 || f.File == nil || f.Registers != nil) {
					t.Errorf("python frame %s", fmt.Sprint(f))
				}
			}
		})
	}
}

// TestSplicePythonBrokenChain: a thread whose frame chain did not hold
// together keeps its native frames; a warning says why.
func TestSplicePythonBrokenChain(t *testing.T) {
	r := &report.Report{Threads: []report.Thread{{TID: 7, Frames: nativeFrames("a", pyruntime.EvalFunction, "main")}}}
	py := &pyruntime.Thread{NativeID: 7, Frames: pyFrames("f!"), FramesError: "python frame 0x10: unmapped"}
	warnings := splicePython(r, &pyProgram{version: "3.11.2", threads: map[int]*pyruntime.Thread{7: py}})
	if got := describe(t, r.Threads[0].Frames); got != "a "+pyruntime.EvalFunction+" main" {
		t.Errorf("frames %q", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "unmapped") || r.Threads[0].Python == nil || r.Threads[0].Python.Error == nil {
		t.Errorf("warnings %q, python %+v", warnings, r.Threads[0].Python)
	}
}

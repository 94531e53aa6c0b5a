package pyruntime

import (
	"debug/dwarf"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
)

// versions are the feature releases whose layouts the reader follows,
// one of each shape: frame objects (3.8-3.10: lnotab, 3.10's table),
// interpreter frames with entry markers (3.11), shims (3.12), the frame
// in the thread state (3.13).
var versions = []pylayout.Version{{Major: 3, Minor: 8}, {Major: 3, Minor: 9}, {Major: 3, Minor: 10}, {Major: 3, Minor: 11}, {Major: 3, Minor: 12}, {Major: 3, Minor: 13}}

// sampleHeap is a process with two threads: the first (tid 100) runs
// inner (called from C by middle), middle and outer, handles
// ValueError("bad value") and holds the GIL; the second (tid 101) runs
// no Python code.
func sampleHeap(t testing.TB, v pylayout.Version) *heap {
	h := newHeap(t, v)
	idle := h.thread(0, 0, 0, 101, 0xb000)
	frame := h.frames([]pyFrameSpec{
		{"inner", "C.inner", 10, false},
		{"middle", "middle", 20, true},
		{"outer", "outer", 30, true},
	})
	busy := h.thread(idle, frame, h.exception("ValueError", "bad value"), 100, 0xa000)
	h.interpreter(busy, busy)
	return h
}

func TestThreads(t *testing.T) {
	for _, v := range versions {
		t.Run(v.String(), func(t *testing.T) {
			h := sampleHeap(t, v)
			threads, warnings := h.reader().Threads(h.mem)
			if len(warnings) > 0 {
				t.Errorf("warnings: %q", warnings)
			}
			if len(threads) != 2 {
				t.Fatalf("%d threads, want 2", len(threads))
			}
			busy, idle := threads[0], threads[1]
			if busy.ThreadID != 0xa000 || idle.ThreadID != 0xb000 {
				t.Errorf("thread ids %#x, %#x", busy.ThreadID, idle.ThreadID)
			}
			if v.AtLeast(3, 11) && (busy.NativeID != 100 || idle.NativeID != 101) {
				t.Errorf("native ids %d, %d", busy.NativeID, idle.NativeID)
			}
			if !busy.HoldsGIL || idle.HoldsGIL {
				t.Errorf("GIL: busy %v, idle %v", busy.HoldsGIL, idle.HoldsGIL)
			}
			if e := busy.Exception; e == nil || e.Type != "ValueError" || e.Message != "bad value" || !e.Handled {
				t.Errorf("exception %+v", e)
			}
			if idle.Exception != nil || len(idle.Frames) != 0 || idle.FramesError != "" {
				t.Errorf("idle thread: %+v", idle)
			}
			var got []string
			for _, f := range busy.Frames {
				got = append(got, fmt.Sprintf("%s/%s %s:%d first %d entry %v %s", f.Name, f.Qualname, f.File, f.Line, f.FirstLine, f.Entry, f.Error))
			}
			inner := "inner/C.inner"
			if !v.AtLeast(3, 11) {
				inner = "inner/inner" // no co_qualname
			}
			// Before 3.11 each frame is its evaluator call's own.
			innerEntry := !v.AtLeast(3, 11)
			want := []string{
				fmt.Sprintf("%s app.py:12 first 10 entry %v ", inner, innerEntry),
				"middle/middle app.py:22 first 20 entry true ",
				"outer/outer app.py:32 first 30 entry true ",
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") || busy.FramesError != "" {
				t.Errorf("frames:\n%s\nwant:\n%s\n(error %q)", strings.Join(got, "\n"), strings.Join(want, "\n"), busy.FramesError)
			}
		})
	}
}

// TestFrameChainLoop: a chain that comes back to a frame stops there
// with an error, after the frames read.
func TestFrameChainLoop(t *testing.T) {
	h := newHeap(t, pylayout.Version{Major: 3, Minor: 11})
	frame := h.frames([]pyFrameSpec{{"a", "a", 1, false}, {"b", "b", 2, true}})
	older, _ := h.reader().word(h.mem, frame+uint64(h.l.Frame.Previous))
	h.word(older, h.l.Frame.Previous, frame)
	ts := h.thread(0, frame, 0, 1, 1)
	h.interpreter(ts, 0)
	threads, _ := h.reader().Threads(h.mem)
	if len(threads) != 1 || len(threads[0].Frames) != 2 || !strings.Contains(threads[0].FramesError, "loops") {
		t.Fatalf("threads %+v", threads)
	}
}

// TestGarbageCode: a frame whose code pointer is not a code object is
// kept, without names, and says why.
func TestGarbageCode(t *testing.T) {
	h := newHeap(t, pylayout.Version{Major: 3, Minor: 11})
	frame := h.frames([]pyFrameSpec{{"a", "a", 1, true}})
	h.word(frame, h.l.Frame.Code, h.str("not code"))
	ts := h.thread(0, frame, 0, 1, 1)
	h.interpreter(ts, 0)
	threads, _ := h.reader().Threads(h.mem)
	if len(threads) != 1 || len(threads[0].Frames) != 1 || !strings.Contains(threads[0].Frames[0].Error, "is not a code") {
		t.Fatalf("threads %+v", threads)
	}
}

func TestVersionString(t *testing.T) {
	for hex, want := range map[uint32]string{0x030b02f0: "3.11.2", 0x030d00c1: "3.13.0rc1", 0x030c00a7: "3.12.0a7", 0x03080000: "3.8.0"} {
		if got := VersionString(hex); got != want {
			t.Errorf("VersionString(%#x) = %q, want %q", hex, got, want)
		}
	}
}

// TestDWARFWhereTheTableFails: a table layout whose reading does not
// hold together (here: one that puts the thread state's frame elsewhere,
// as a patched build would) gives way to the layout of the module's
// DWARF: Debian's python3.11 debug information (python3.11-dbg).
func TestDWARFWhereTheTableFails(t *testing.T) {
	const exe = "/usr/bin/python3.11"
	if _, err := os.Stat(exe); err != nil {
		testenv.Unavailable(t, exe+" is not installed (Debian package python3.11)")
	}
	o, err := elfx.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := o.AttachDebugFile(nil); err != nil {
		testenv.Unavailable(t, exe+" has no debug file (Debian package python3.11-dbg): "+err.Error())
	}
	d, err := o.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	h := sampleHeap(t, pylayout.Version{Major: 3, Minor: 11})
	wrong := h.l
	wrong.Thread.CFrame += 8
	r := h.reader()
	r.layout = &wrong
	r.b.DWARF = func() *dwarf.Data { return d }
	threads, warnings := r.Threads(h.mem)
	if len(threads) != 2 || len(threads[0].Frames) != 3 || threads[0].FramesError != "" || len(warnings) > 0 {
		t.Fatalf("threads %+v, warnings %q", threads, warnings)
	}
	if r.Layout().Source != pylayout.FromDWARFInfo {
		t.Errorf("layout from %s, want DWARF", r.Layout().Source)
	}
	// Without the DWARF the table's reading stands, errors and all.
	r = h.reader()
	r.layout = &wrong
	if threads, _ := r.Threads(h.mem); holdsTogether(threads) {
		t.Errorf("the wrong layout's reading holds together: %+v", threads)
	}
}

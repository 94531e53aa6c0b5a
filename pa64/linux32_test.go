package pa64_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/report"
)

// TestLinuxHPPACoresMatchGDB crashes real hppa-linux programs under
// qemu-hppa, records gdb-multiarch's live backtrace and the process state,
// writes the state as a kernel-layout core, and checks that coreunwind on
// the core prints every frame gdb printed live: same function, same pc
// (a thread blocked in a system call excepted: gdb takes frame 1 from the
// stale rp, coreunwind from r31, the syscall's return point, in the same
// function). Past a signal frame, where gdb stops, coreunwind must go on
// to the interrupted code and main.
func TestLinuxHPPACoresMatchGDB(t *testing.T) {
	hppa.PA32.Need(t)
	cases := []struct {
		prog       string
		threads    int
		throughSig bool
	}{
		{"mt", 3, false},
		{"abort", 1, false},
		{"libc_crash", 1, false},
		{"sighandler", 1, true},
	}
	for _, c := range cases {
		t.Run(c.prog, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src, _ := filepath.Abs(filepath.Join("testdata", "progs", c.prog+".c"))
			prog := hppa.PA32.Build(t, dir, c.prog, src, "-g", "-O1", "-pthread")
			hppa.CrashUnderGDB(t, dir, prog)
			core := hppa.WriteCore(t, dir)
			btText, err := os.ReadFile(filepath.Join(dir, "live-bt.txt"))
			if err != nil {
				t.Fatal(err)
			}
			live := refbt.ParseGDB(string(btText))
			if len(live) != c.threads {
				t.Fatalf("gdb shows %d threads, want %d:\n%s", len(live), c.threads, btText)
			}
			r, err := analyze.Analyze(core, analyze.Options{Executable: prog, Sysroot: hppa.Sysroot})
			if err != nil {
				t.Fatal(err)
			}
			if r.Core.Arch != "hppa" || len(r.Threads) != c.threads {
				t.Fatalf("arch %s, %d threads", r.Core.Arch, len(r.Threads))
			}
			for _, th := range r.Threads {
				want, ok := live[th.TID]
				if !ok {
					t.Errorf("thread %d: gdb has no such thread", th.TID)
					continue
				}
				compareThread(t, th, want.Frames, c.throughSig)
			}
			if c.prog == "mt" {
				checkCorehead(t, dir, prog, live)
			}
		})
	}
}

// checkCorehead writes the same process as a 32-bit HP-UX corehead core:
// the crashed thread's frames in the executable (leaf_crash up to main)
// must be the ones gdb printed live. (The corehead format records no
// shared libraries, so frames in libc are not compared.)
func checkCorehead(t *testing.T, dir, prog string, live map[int]*refbt.Thread) {
	core := hppa.WriteCorehead(t, dir)
	r, err := analyze.Analyze(core, analyze.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	if r.Core.Arch != "hppa" || r.Core.OS != "hpux" || len(r.Threads) != 3 {
		t.Fatalf("corehead: arch %s os %s threads %d", r.Core.Arch, r.Core.OS, len(r.Threads))
	}
	th := r.Threads[0]
	var want []refbt.Frame
	if lt := live[th.TID]; lt != nil {
		want = lt.Frames
	}
	if !th.Crashed || len(want) < 6 || len(th.Frames) < 6 {
		t.Fatalf("corehead: thread %d crashed %v, %d frames (gdb %d)", th.TID, th.Crashed, len(th.Frames), len(want))
	}
	for i := 0; i < 6; i++ {
		if uint64(th.Frames[i].PC) != want[i].PC || name(th.Frames[i]) != gdbName(want[i]) {
			t.Errorf("corehead frame %d: %#x %s, gdb %#x %s", i, uint64(th.Frames[i].PC), name(th.Frames[i]), want[i].PC, gdbName(want[i]))
		}
	}
}

func compareThread(t *testing.T, th report.Thread, want []refbt.Frame, throughSig bool) {
	t.Helper()
	got := th.Frames
	dump := func() string {
		var b strings.Builder
		for _, f := range got {
			b.WriteString("  " + fmt.Sprintf("%#x", uint64(f.PC)) + " " + name(f) + " " + f.Trust + "\n")
		}
		return b.String()
	}
	sawSignal, compared := false, 0
	defer func() {
		if compared < 2 && !t.Failed() {
			t.Errorf("thread %d: only %d frames compared with gdb's", th.TID, compared)
		}
	}()
	for i, w := range want {
		if w.Signal {
			sawSignal = true
			if i >= len(got) || !got[i].Signal {
				t.Errorf("thread %d frame %d: gdb shows the signal frame, coreunwind does not:\n%s", th.TID, i, dump())
			}
			break
		}
		if w.HasPC && w.PC == 0 {
			break // gdb's end of the chain
		}
		if i >= len(got) {
			t.Errorf("thread %d: %d frames, gdb has frame %d %s %#x:\n%s", th.TID, len(got), i, gdbName(w), w.PC, dump())
			return
		}
		g := got[i]
		sameName := gdbName(w) == name(g) || strings.TrimPrefix(name(g), "__") == gdbName(w)
		samePC := !w.HasPC || uint64(g.PC) == w.PC
		inSyscall := i == 1 && len(got) > 0 && uint64(got[0].PC) == 0x100
		compared++
		if !sameName || (!samePC && !inSyscall) {
			t.Errorf("thread %d frame %d: coreunwind %#x %s, gdb %#x %s:\n%s", th.TID, i, uint64(g.PC), name(g), w.PC, gdbName(w), dump())
		}
	}
	if throughSig {
		if !sawSignal {
			t.Fatalf("gdb shows no signal frame")
		}
		found := false
		for _, f := range got {
			found = found || name(f) == "main"
		}
		if !found {
			t.Errorf("thread %d: coreunwind did not continue through the signal frame to main:\n%s", th.TID, dump())
		}
	}
}

// gdbName is a gdb frame's function as name prints coreunwind's: "??"
// where gdb has none.
func gdbName(f refbt.Frame) string {
	if f.Func == "" {
		return "??"
	}
	return f.Func
}

func name(f report.Frame) string {
	if f.Function == nil {
		return "??"
	}
	return *f.Function
}

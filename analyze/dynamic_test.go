package analyze

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

// jitExpect is what the crashing program wrote about itself.
type jitExpect struct {
	fns  map[uint64]string // start -> registered name
	lens map[uint64]uint64
	ras  []uint64 // return addresses into generated code, innermost first
	bt   []uint64 // libunwind's backtrace
}

func (e *jitExpect) nameAt(pc uint64) string {
	for start, name := range e.fns {
		if pc >= start && pc < start+e.lens[start] {
			return name
		}
	}
	return ""
}

func readJITExpect(t *testing.T, path string) *jitExpect {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := &jitExpect{fns: map[uint64]string{}, lens: map[uint64]uint64{}}
	hex := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 16, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return v
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		switch {
		case len(w) == 4 && w[0] == "fn":
			n, _ := strconv.Atoi(w[3])
			e.fns[hex(w[2])] = w[1]
			e.lens[hex(w[2])] = uint64(n)
		case len(w) == 2 && w[0] == "ra":
			e.ras = append(e.ras, hex(w[1]))
		case len(w) == 2 && w[0] == "bt":
			e.bt = append(e.bt, hex(w[1]))
		}
	}
	return e
}

// buildDynamicJIT builds the libunwind JIT program into its own directory.
func buildDynamicJIT(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/include/x86_64-linux-gnu/libunwind.h"); err != nil {
		testenv.Unavailable(t, "libunwind-dev is not installed (apt-get install -y libunwind-dev)")
	}
	dir := t.TempDir()
	return testenv.BuildC(t, dir, "jitdyn", dynamicJITProg, "-O1", "-g", "-lunwind", "-lunwind-x86_64")
}

// crashedFrames analyzes core and returns the crashed thread's frames
// without inlined entries (one per physical frame).
func crashedFrames(t *testing.T, core string, opts Options) (*report.Report, []report.Frame) {
	t.Helper()
	r, err := Analyze(core, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range r.Threads {
		if !th.Crashed {
			continue
		}
		var out []report.Frame
		for _, f := range th.Frames {
			if !f.Inlined {
				out = append(out, f)
			}
		}
		return r, out
	}
	t.Fatal("no crashed thread")
	return nil, nil
}

func fname(f report.Frame) string {
	if f.Function == nil {
		return "??"
	}
	return *f.Function
}

func dumpFrames(t *testing.T, fs []report.Frame) {
	t.Helper()
	for i, f := range fs {
		t.Logf("#%d pc=%#x %s trust=%s", i, uint64(f.PC), fname(f), f.Trust)
	}
}

// TestDynamicRemoteTable: REMOTE_TABLE entries, which libunwind itself
// follows, so its backtrace taken just before the crash is the reference
// for every frame; the generated frames must carry their registered
// names (libunwind has none for them).
func TestDynamicRemoteTable(t *testing.T) {
	prog := buildDynamicJIT(t)
	outPath := filepath.Join(filepath.Dir(prog), "expect")
	core, _ := testenv.Crash(t, prog, "remote", outPath)
	exp := readJITExpect(t, outPath)
	if len(exp.bt) < 5 {
		t.Fatalf("libunwind's backtrace is too short: %x", exp.bt)
	}
	r, frames := crashedFrames(t, core, Options{Executable: prog})
	dumpFrames(t, frames)
	for _, w := range r.Warnings {
		t.Logf("warning: %s", w)
	}
	if fname(frames[0]) != "crash_cb" {
		t.Fatalf("frame 0 is %s, want crash_cb", fname(frames[0]))
	}
	// libunwind's frame 0 is crash_cb where it took the context; from
	// frame 1 on both are return addresses and must agree.
	if len(frames) < len(exp.bt) {
		t.Fatalf("%d frames, libunwind found %d", len(frames), len(exp.bt))
	}
	for i := 1; i < len(exp.bt); i++ {
		if uint64(frames[i].PC) != exp.bt[i] {
			t.Errorf("frame %d: pc %#x, libunwind %#x", i, uint64(frames[i].PC), exp.bt[i])
		}
	}
	for i, f := range frames[1:3] {
		want := exp.nameAt(uint64(f.PC) - 1)
		if want == "" || fname(f) != want {
			t.Errorf("frame %d: %s, want the registered name %q", i+1, fname(f), want)
		}
	}
	// Both generated frames were unwound by their registered tables.
	for _, i := range []int{2, 3} {
		if frames[i].Trust != "dynamic" {
			t.Errorf("frame %d (%s): trust %s, want dynamic", i, fname(frames[i]), frames[i].Trust)
		}
	}
}

// TestDynamicOperations: DYNAMIC entries (which libunwind does not
// interpret on x86-64) and a TABLE entry; the frames through generated
// code must be exactly the return addresses the program pushed, found by
// the registered information alone; the frames below must match
// libunwind's backtrace of run's callers. The frame of code described
// only by perf-PID.map beside the core is named from it.
func TestDynamicOperations(t *testing.T) {
	prog := buildDynamicJIT(t)
	outPath := filepath.Join(filepath.Dir(prog), "expect")
	core, _ := testenv.Crash(t, prog, "dynamic", outPath)
	exp := readJITExpect(t, outPath)
	if len(exp.ras) != 4 || len(exp.bt) < 3 {
		t.Fatalf("program wrote %d return addresses and %d backtrace frames", len(exp.ras), len(exp.bt))
	}
	r, frames := crashedFrames(t, core, Options{Executable: prog})
	dumpFrames(t, frames)
	for _, w := range r.Warnings {
		t.Logf("warning: %s", w)
	}
	want := 1 + len(exp.ras) + 1 + len(exp.bt)
	if len(frames) < want {
		t.Fatalf("%d frames, want at least %d", len(frames), want)
	}
	if fname(frames[0]) != "crash_cb" {
		t.Errorf("frame 0 is %s, want crash_cb", fname(frames[0]))
	}
	for i, ra := range exp.ras {
		f := frames[1+i]
		if uint64(f.PC) != ra {
			t.Errorf("frame %d: pc %#x, want %#x", 1+i, uint64(f.PC), ra)
		}
		name := exp.nameAt(ra - 1)
		if name == "jit_E_perfmap" {
			name = "jit_E_perfmap" // named by the perf map only
		}
		if fname(f) != name {
			t.Errorf("frame %d: %s, want %s", 1+i, fname(f), name)
		}
	}
	// Frames whose caller was found from registered info: the callers of
	// D (TABLE), B and A (DYNAMIC operations).
	for _, i := range []int{2, 3, 4} {
		if frames[i].Trust != "dynamic" {
			t.Errorf("frame %d (%s): trust %s, want dynamic", i, fname(frames[i]), frames[i].Trust)
		}
	}
	run := 1 + len(exp.ras)
	if fname(frames[run]) != "run" {
		t.Errorf("frame %d is %s, want run", run, fname(frames[run]))
	}
	for i, pc := range exp.bt {
		if got := uint64(frames[run+1+i].PC); got != pc {
			t.Errorf("frame %d: pc %#x, libunwind %#x", run+1+i, got, pc)
		}
	}
}

package pa64_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/internal/refbt"
)

// TestDeepStacksMatchGDB crashes deep.c under qemu-hppa 3000 calls deep,
// and again after unbounded recursion ran off the end of a 1 MiB stack
// (PA-RISC stacks grow up, so the overflow is past the top). gdb's live
// backtrace gives the innermost and outermost 60 frames with their
// numbers; coreunwind's frame with the same number must be the same
// function at the same pc, and the whole walk must end in main with no
// error. A --max-frames limit stops the walk at exactly that many frames
// and marks the thread truncated.
func TestDeepStacksMatchGDB(t *testing.T) {
	hppa.PA32.Need(t)
	cases := []struct {
		name     string
		args     []string
		qemu     []string
		leaf     string
		minDepth int
	}{
		{"recursion", []string{"deep", "3000"}, nil, "down", 3001},
		{"overflow", []string{"overflow"}, []string{"-s", "1M"}, "forever", 1000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src, _ := filepath.Abs("testdata/progs/deep.c")
			prog := hppa.PA32.Build(t, dir, "deep", src, "-g", "-O1")
			hppa.CrashUnderGDBWith(t, dir, prog, hppa.GDBOptions{Backtrace: "bt 60", Commands: []string{"bt -60"}, QemuArgs: c.qemu}, c.args...)
			live := numberedFrames(t, filepath.Join(dir, "live-bt.txt"), filepath.Join(dir, "extra.txt"))
			core := hppa.WriteCore(t, dir)
			r, err := analyze.Analyze(core, analyze.Options{Executable: prog, Sysroot: hppa.Sysroot, MaxFrames: 100000})
			if err != nil {
				t.Fatal(err)
			}
			th := r.Threads[0]
			if th.Error != nil || th.Truncated {
				t.Fatalf("walk error %s, truncated %v after %d frames", deref(th.Error), th.Truncated, len(th.Frames))
			}
			outermost := 0
			for n := range live {
				outermost = max(outermost, n)
			}
			if outermost < c.minDepth || len(live) != 120 {
				t.Fatalf("gdb: outermost frame #%d, %d frames recorded", outermost, len(live))
			}
			fr := th.Frames
			// gdb stops after main; coreunwind may add __libc_start_main
			// and _start above it.
			if len(fr) <= outermost || name(fr[outermost]) != "main" {
				t.Fatalf("coreunwind has %d frames, gdb's #%d is main", len(fr), outermost)
			}
			if name(fr[0]) != c.leaf {
				t.Errorf("frame 0 is %s, want %s", name(fr[0]), c.leaf)
			}
			for n, w := range live {
				g := fr[n]
				if name(g) != gdbName(w) || (w.HasPC && uint64(g.PC) != w.PC) {
					t.Errorf("frame %d: coreunwind %#x %s, gdb %#x %s", n, uint64(g.PC), name(g), w.PC, gdbName(w))
				}
			}
			t.Logf("%d frames; gdb's outermost #%d", len(fr), outermost)

			// --max-frames: exactly that many frames, the thread truncated.
			r, err = analyze.Analyze(core, analyze.Options{Executable: prog, Sysroot: hppa.Sysroot, MaxFrames: 100})
			if err != nil {
				t.Fatal(err)
			}
			th = r.Threads[0]
			if len(th.Frames) != 100 || !th.Truncated {
				t.Errorf("max frames 100: %d frames, truncated %v", len(th.Frames), th.Truncated)
			}
			for i := 0; i < len(th.Frames) && i < 100; i++ {
				if th.Frames[i].PC != fr[i].PC {
					t.Fatalf("max frames 100: frame %d differs from the full walk", i)
				}
			}
		})
	}
}

// numberedFrames reads gdb backtraces (bt N, bt -N) by frame number.
func numberedFrames(t *testing.T, paths ...string) map[int]refbt.Frame {
	t.Helper()
	out := map[int]refbt.Frame{}
	for _, p := range paths {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range refbt.ParseGDBFrames(string(text)) {
			out[f.Index] = f
		}
	}
	return out
}

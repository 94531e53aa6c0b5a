package analyze

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/regfile"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

func TestParsePerfMap(t *testing.T) {
	in := strings.Join([]string{
		"7f0000001000 40 jit_a",
		"0x7f0000001040 0x20 LazyCompile:*foo /src/app.js:12",
		"",
		"7f0000001000 10 jit_a_recompiled", // later line wins where it overlaps
		"garbage",
		"zz 10 bad_start",
		"7f0000002000 0 empty",
	}, "\n")
	pm, err := parsePerfMap(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if pm.skipped != 3 {
		t.Errorf("skipped %d malformed lines, want 3", pm.skipped)
	}
	for _, c := range []struct {
		addr uint64
		want string
	}{
		{0x7f0000000fff, ""},
		{0x7f0000001000, "jit_a_recompiled"},
		{0x7f000000100f, "jit_a_recompiled"},
		{0x7f0000001010, "jit_a"},
		{0x7f0000001040, "LazyCompile:*foo /src/app.js:12"},
		{0x7f0000001060, ""},
		{0x7f0000002000, ""},
	} {
		e, _ := pm.lookup(c.addr)
		if e.name != c.want {
			t.Errorf("%#x: %q, want %q", c.addr, e.name, c.want)
		}
	}
	var nilMap *perfMap
	if _, ok := nilMap.lookup(1); ok {
		t.Error("nil map found something")
	}
}

func FuzzParsePerfMap(f *testing.F) {
	f.Add("7f0000001000 40 jit_a\n0x10 0x10 b\n")
	f.Add("ffffffffffffffff 2 wrap\n")
	f.Add("0 1000 long\n1 1 a\n2 1 b\n3 1 c\n0 2 d\n")
	f.Fuzz(func(t *testing.T, s string) {
		// Long inputs find new coverage only in hit counts of the
		// byte loops, and the engine then minimizes each of them with
		// O(n²) executions, printing "0/sec" for a minute at a time:
		// that was the "stall". Long lines are tested below instead.
		if len(s) > 256 {
			return
		}
		pm, err := parsePerfMap(strings.NewReader(s))
		if err != nil {
			return
		}
		if len(pm.entries) > 256 {
			return // the brute-force check below is quadratic
		}
		// The latest line covering an address, by brute force.
		latest := func(addr uint64) (perfEntry, bool) {
			for i := len(pm.entries) - 1; i >= 0; i-- {
				if e := pm.entries[i]; addr >= e.start && addr < e.end {
					return e, true
				}
			}
			return perfEntry{}, false
		}
		for _, e := range pm.entries {
			for _, a := range []uint64{e.start - 1, e.start, e.start + (e.end-e.start)/2, e.end - 1, e.end} {
				got, ok := pm.lookup(a)
				want, wok := latest(a)
				if ok != wok || got.seq != want.seq {
					t.Fatalf("%#x: found %+v (%v), the latest covering line is %+v (%v)", a, got, ok, want, wok)
				}
			}
		}
	})
}

// TestPerfMapLongEntryUnderShortOnes: a long entry stays visible between
// many short ones that start inside it, and a lookup does not walk them
// (the segments are disjoint).
func TestPerfMapLongEntryUnderShortOnes(t *testing.T) {
	var b strings.Builder
	b.WriteString("1000 100000 outer\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "%x 4 inner%d\n", 0x2000+16*i, i)
	}
	pm, err := parsePerfMap(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[uint64]string{0x1000: "outer", 0x2000: "inner0", 0x2004: "outer", 0x2000 + 16*4999 + 8: "outer", 0x2000 + 16*4999: "inner4999", 0x100fff: "outer", 0x101000: ""} {
		if e, _ := pm.lookup(addr); e.name != want {
			t.Errorf("%#x: %q, want %q", addr, e.name, want)
		}
	}
	if len(pm.segments) > 2*len(pm.entries) {
		t.Errorf("%d segments for %d entries", len(pm.segments), len(pm.entries))
	}
}

// TestPerfMapLongLines: lines longer than the scanner's first buffer
// parse; a line over the bound is an error, not a huge allocation.
func TestPerfMapLongLines(t *testing.T) {
	name := strings.Repeat("n", 10000)
	pm, err := parsePerfMap(strings.NewReader("1000 10 " + name + "\n2000 10 b\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := pm.lookup(0x1000); e.name != name {
		t.Errorf("long name lost: %d bytes", len(e.name))
	}
	if e, _ := pm.lookup(0x2000); e.name != "b" {
		t.Errorf("line after the long one: %q", e.name)
	}
	if _, err := parsePerfMap(strings.NewReader("1000 10 " + strings.Repeat("n", maxPerfMapLine+1))); err == nil {
		t.Error("a line over the bound parsed")
	}
}

// BenchmarkParsePerfMap: one exec of the fuzz target's parser on a
// kilobyte line (the fuzzer minimizes such inputs byte by byte).
func BenchmarkParsePerfMap(b *testing.B) {
	s := "7f0000001000 40 " + strings.Repeat("x", 1024) + "\n"
	for i := 0; i < b.N; i++ {
		if _, err := parsePerfMap(strings.NewReader(s)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPerfMapOption: --perf-map names JIT code from a file elsewhere; a
// missing explicit file is a warning, not a failure.
func TestPerfMapOption(t *testing.T) {
	prog := buildDynamicJIT(t)
	dir := filepath.Dir(prog)
	outPath := filepath.Join(dir, "expect")
	core, _ := testenv.Crash(t, prog, "dynamic", outPath)
	exp := readJITExpect(t, outPath)
	var e uint64
	for start, name := range exp.fns {
		if name == "jit_E_perfmap" {
			e = start
		}
	}
	// Move the map away from the core: without the option E has no name.
	maps, _ := filepath.Glob(filepath.Join(dir, "perf-*.map"))
	if len(maps) != 1 {
		t.Fatalf("perf maps beside the core: %v", maps)
	}
	elsewhere := filepath.Join(t.TempDir(), "renamed.map")
	if err := os.Rename(maps[0], elsewhere); err != nil {
		t.Fatal(err)
	}
	frameAt := func(opts Options) string {
		_, frames := crashedFrames(t, core, opts)
		for _, f := range frames {
			if uint64(f.PC) > e && uint64(f.PC) <= e+exp.lens[e] {
				return fname(f)
			}
		}
		t.Fatalf("no frame in jit_E")
		return ""
	}
	if got := frameAt(Options{Executable: prog}); got != "??" {
		t.Errorf("without a perf map E is named %q", got)
	}
	if got := frameAt(Options{Executable: prog, PerfMap: elsewhere}); got != "jit_E_perfmap" {
		t.Errorf("with --perf-map E is named %q", got)
	}
	r, _ := Analyze(core, Options{Executable: prog, PerfMap: filepath.Join(dir, "missing.map")})
	found := false
	for _, w := range r.Warnings {
		found = found || strings.Contains(w, "missing.map")
	}
	if !found {
		t.Errorf("no warning about the missing perf map: %q", r.Warnings)
	}
}

// TestPerfMapFIFO: a named pipe as the perf map (perf-PID.map beside a
// core is anyone's to create) is refused at once, not waited on.
func TestPerfMapFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "perf-1.map")
	testenv.Mkfifo(t, fifo)
	testenv.NoHang(t, 10*time.Second, "readPerfMapFile", func() {
		if _, err := readPerfMapFile(fifo); !errors.Is(err, regfile.ErrNotRegular) {
			t.Errorf("readPerfMapFile(FIFO): %v, want a refusal of a file that is not regular", err)
		}
	}, fifo)
}

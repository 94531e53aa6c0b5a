package analyze

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	f.Fuzz(func(t *testing.T, s string) {
		pm, err := parsePerfMap(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, e := range pm.entries {
			if got, ok := pm.lookup(e.start); !ok || got.end <= e.start {
				t.Fatalf("entry %+v not found at its start (%+v)", e, got)
			}
		}
	})
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

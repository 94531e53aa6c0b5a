package gopclntab

import (
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// built is testdata/inlined, built once with and once without DWARF and
// symbols, with what it printed when run.
type built struct {
	full, stripped string
	output         string
}

var (
	buildOnce sync.Once
	buildRes  built
	buildErr  error
)

// crossBuilds are testdata/inlined built for other architectures, by
// GOARCH: what the frame tables of machines with a link register are
// checked on.
var crossBuilds sync.Map // GOARCH -> func() (string, error)

// buildInlinedFor builds testdata/inlined with DWARF for goarch, once.
func buildInlinedFor(t testing.TB, goarch string) string {
	t.Helper()
	gotool := testenv.NeedTool(t, "go")
	f, _ := crossBuilds.LoadOrStore(goarch, sync.OnceValues(func() (string, error) {
		dir, err := os.MkdirTemp("", "gopclntab-test-")
		if err != nil {
			return "", err
		}
		src, err := filepath.Abs("testdata/inlined/main.go")
		if err != nil {
			return "", err
		}
		exe := filepath.Join(dir, "inlined-"+goarch)
		cmd := exec.Command(gotool, "build", "-o", exe, src)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOARCH="+goarch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build: %v\n%s", err, out)
		}
		return exe, nil
	}))
	exe, err := f.(func() (string, error))()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// buildInlined builds and runs testdata/inlined.
func buildInlined(t testing.TB) built {
	t.Helper()
	gotool := testenv.NeedTool(t, "go")
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gopclntab-test-")
		if err != nil {
			buildErr = err
			return
		}
		src, err := filepath.Abs("testdata/inlined/main.go")
		if err != nil {
			buildErr = err
			return
		}
		buildRes.full, buildRes.stripped = filepath.Join(dir, "inlined"), filepath.Join(dir, "inlined-stripped")
		for _, b := range []struct {
			exe   string
			flags []string
		}{{buildRes.full, nil}, {buildRes.stripped, []string{"-ldflags=-s -w"}}} {
			cmd := exec.Command(gotool, append(append([]string{"build", "-o", b.exe}, b.flags...), src)...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build: %v\n%s", err, out)
				return
			}
		}
		out, err := exec.Command(buildRes.full).Output()
		if err != nil {
			buildErr = fmt.Errorf("running %s: %v", buildRes.full, err)
		}
		buildRes.output = string(out)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildRes
}

// openTable reads exe's .gopclntab, with the gofunc bytes found through
// its moduledata, and returns the ELF file too.
func openTable(t testing.TB, exe string) (*Table, *elf.File, ModuleData) {
	t.Helper()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	sec, text := f.Section(".gopclntab"), f.Section(".text")
	if sec == nil || text == nil {
		t.Fatalf("%s has no .gopclntab or .text", exe)
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Parse(data, text.Addr)
	if err != nil {
		t.Fatal(err)
	}
	var segs []Segment
	for _, name := range []string{".go.module", ".noptrdata", ".data"} {
		if s := f.Section(name); s != nil {
			d, err := s.Data()
			if err != nil {
				t.Fatal(err)
			}
			segs = append(segs, Segment{Addr: s.Addr, Data: d})
		}
	}
	md, err := tab.FindModuleData(sec.Addr, segs)
	if err != nil {
		t.Fatalf("%s: %v", exe, err)
	}
	for _, s := range f.Sections {
		if s.Type == elf.SHT_PROGBITS && md.GoFunc >= s.Addr && md.GoFunc < s.Addr+s.Size {
			d, err := s.Data()
			if err != nil {
				t.Fatal(err)
			}
			tab.SetGoFunc(d[md.GoFunc-s.Addr:])
		}
	}
	return tab, f, md
}

// TestAgainstGosym: every function debug/gosym finds in the table is
// found by this package at its entry, its last byte, and in between,
// with the same name and bounds, and the same file and line at each of
// those addresses.
func TestAgainstGosym(t *testing.T) {
	b := buildInlined(t)
	tab, f, _ := openTable(t, b.full)
	data, _ := f.Section(".gopclntab").Data()
	gt, err := gosym.NewTable(nil, gosym.NewLineTable(data, f.Section(".text").Addr))
	if err != nil {
		t.Fatal(err)
	}
	if len(gt.Funcs) != tab.NumFuncs() {
		t.Errorf("%d functions, debug/gosym %d", tab.NumFuncs(), len(gt.Funcs))
	}
	checked := 0
	for _, gf := range gt.Funcs {
		for _, pc := range []uint64{gf.Entry, (gf.Entry + gf.End) / 2, gf.End - 1} {
			fn, ok := tab.FuncAt(pc)
			if !ok {
				t.Fatalf("no function at %#x (%s)", pc, gf.Name)
			}
			if fn.Name != gf.Name || fn.Entry != gf.Entry || fn.End != gf.End {
				t.Fatalf("at %#x: %s [%#x,%#x), debug/gosym %s [%#x,%#x)", pc, fn.Name, fn.Entry, fn.End, gf.Name, gf.Entry, gf.End)
			}
			file, line, ok := fn.FileLine(pc)
			gfile, gline, _ := gt.PCToLine(pc)
			if !ok && gline <= 0 {
				continue // padding: neither has a line
			}
			if !ok || file != gfile || line != gline {
				t.Fatalf("%s at %#x: %s:%d (%v), debug/gosym %s:%d", fn.Name, pc, file, line, ok, gfile, gline)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Errorf("only %d addresses checked", checked)
	}
	if _, ok := tab.FuncAt(gt.Funcs[len(gt.Funcs)-1].End); ok {
		t.Errorf("a function past the last one's end")
	}
}

// TestInlinedFrames: the frames at each return address of the program's
// own stack, inlined ones expanded, are those runtime.CallersFrames gave
// it, in both the DWARF build and the stripped one (the same code).
func TestInlinedFrames(t *testing.T) {
	b := buildInlined(t)
	var pcs []uint64
	var want []string
	for _, line := range strings.Split(b.output, "\n") {
		if s, ok := strings.CutPrefix(line, "pc "); ok {
			pc, err := strconv.ParseUint(s, 0, 64)
			if err != nil {
				t.Fatal(err)
			}
			pcs = append(pcs, pc)
		} else if s, ok := strings.CutPrefix(line, "frame "); ok {
			want = append(want, s)
		}
	}
	if len(want) < 5 || !strings.Contains(b.output, "frame main.middle ") {
		t.Fatalf("the program printed no inlined frames:\n%s", b.output)
	}
	for _, exe := range []string{b.full, b.stripped} {
		tab, _, _ := openTable(t, exe)
		// runtime.Callers gives one pc per frame, inlined ones too
		// (each at its inline mark, the call's parent pc, plus one),
		// and CallersFrames names only the innermost function at each:
		// the chain at one pc covers that many of the pcs.
		var got []string
		inlined := 0
		for i := 0; i < len(pcs); {
			fn, ok := tab.FuncAt(pcs[i] - 1)
			if !ok {
				t.Fatalf("%s: no function at %#x", exe, pcs[i]-1)
			}
			frames, err := fn.Frames(pcs[i] - 1)
			if err != nil || len(frames) == 0 {
				t.Fatalf("%s: frames at %#x: %v", exe, pcs[i]-1, err)
			}
			for _, fr := range frames {
				if fr.Inlined {
					inlined++
				}
				got = append(got, fmt.Sprintf("%s %s %d", fr.Function, fr.File, fr.Line))
			}
			i += len(frames)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: frames\n%s\nruntime.CallersFrames:\n%s", exe, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if inlined < 2 {
			t.Errorf("%s: %d inlined frames, want main.middle and main.outer at least", exe, inlined)
		}
	}
}

// TestSpecialFuncs: the runtime's functions that end or switch stacks
// are known by their funcID and flags: goexit is a top frame, and the
// stack switchers are not normal functions.
func TestSpecialFuncs(t *testing.T) {
	b := buildInlined(t)
	tab, _, _ := openTable(t, b.stripped)
	goexit, ok := tab.FuncByName("runtime.goexit")
	if !ok || goexit.Flag&FlagTopFrame == 0 || goexit.ID == 0 {
		t.Errorf("runtime.goexit: %+v, %v", goexit, ok)
	}
	main, ok := tab.FuncByName("main.main")
	if !ok || main.ID != 0 || main.Flag != 0 {
		t.Errorf("main.main: %+v, %v", main, ok)
	}
	for _, name := range []string{"runtime.systemstack", "runtime.mcall", "runtime.morestack"} {
		fn, ok := tab.FuncByName(name)
		if !ok || fn.ID == 0 || fn.ID == goexit.ID {
			t.Errorf("%s: %+v, %v", name, fn, ok)
		}
	}
}

// TestSPDelta: at main.caller's entry the stack holds only the return
// address (delta 0); past its prologue the delta is its frame size, the
// same at each call it makes, and its caller's frame is then at
// SP+delta.
func TestSPDelta(t *testing.T) {
	b := buildInlined(t)
	tab, _, _ := openTable(t, b.full)
	fn, ok := tab.FuncByName("main.caller")
	if !ok {
		t.Fatal("no main.caller")
	}
	if d, ok := fn.SPDelta(fn.Entry); !ok || d != 0 {
		t.Errorf("SP delta at entry %d, %v; want 0", d, ok)
	}
	// Every instruction has a delta; the bytes after the last one are
	// int3 padding up to the next function.
	text := b.textBytes(t, fn.Entry, fn.End)
	maxDelta := int64(0)
	for pc := fn.Entry; pc < fn.End; pc++ {
		d, ok := fn.SPDelta(pc)
		if !ok {
			if text[pc-fn.Entry] != 0xcc {
				t.Fatalf("no SP delta at %#x, an instruction", pc)
			}
			continue
		}
		if d < 0 || d > 1<<20 {
			t.Fatalf("SP delta at %#x: %d", pc, d)
		}
		maxDelta = max(maxDelta, d)
	}
	if maxDelta == 0 || maxDelta%8 != 0 {
		t.Errorf("main.caller's largest SP delta %d: want its frame size, a non-zero multiple of 8", maxDelta)
	}
}

// textBytes returns the full build's code from lo to hi.
func (b built) textBytes(t *testing.T, lo, hi uint64) []byte {
	f, err := elf.Open(b.full)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := f.Section(".text")
	buf := make([]byte, hi-lo)
	if _, err := text.ReadAt(buf, int64(lo-text.Addr)); err != nil {
		t.Fatal(err)
	}
	return buf
}

// TestModuleData: the moduledata found by scanning is at
// runtime.firstmoduledata and points where the symbols say.
func TestModuleData(t *testing.T) {
	b := buildInlined(t)
	_, f, md := openTable(t, b.full)
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{}
	for _, s := range syms {
		want[s.Name] = s.Value
	}
	for _, c := range []struct {
		name string
		got  uint64
	}{{"runtime.firstmoduledata", md.Addr}, {"go:func.*", md.GoFunc}, {"runtime.text", md.Text}, {"runtime.types", md.Types}} {
		if w, ok := want[c.name]; !ok || w != c.got {
			t.Errorf("%s: found %#x, the symbol table says %#x (%v)", c.name, c.got, w, ok)
		}
	}
}

package elfx

import (
	"bufio"
	"debug/elf"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// rustHash is the hash suffix binutils prints for legacy Rust names.
var rustHash = regexp.MustCompile(`::h[0-9a-f]{16}$`)

// TestRustDemangling checks symbol names against nm -C and source frames
// against addr2line -C for Rust's legacy and v0 manglings.
func TestRustDemangling(t *testing.T) {
	for _, mangling := range []string{"legacy", "v0"} {
		t.Run(mangling, func(t *testing.T) {
			dir := t.TempDir()
			flags := []string{"-g", "-C", "opt-level=1", "-C", "symbol-mangling-version=" + mangling}
			if mangling == "legacy" {
				// Current rustc defaults to v0 and gates legacy behind -Z.
				t.Setenv("RUSTC_BOOTSTRAP", "1")
				flags = append(flags, "-Z", "unstable-options")
			}
			bin := compile(t, dir, "rustc", "prog", "rs", rustProgram, flags...)
			o := mustOpen(t, bin)
			nm := testenv.NeedTool(t, "nm")
			raw := run(t, dir, nm, bin)
			dem := run(t, dir, nm, "-C", bin)
			rawLines, demLines := strings.Split(raw, "\n"), strings.Split(dem, "\n")
			if len(rawLines) != len(demLines) {
				t.Fatal("nm and nm -C disagree on the number of symbols")
			}
			checked, bad := 0, 0
			prefix := map[string]string{"legacy": "_ZN", "v0": "_R"}[mangling]
			for i := range rawLines {
				rf, df := strings.Fields(rawLines[i]), strings.SplitN(demLines[i], " ", 3)
				if len(rf) != 3 || len(df) != 3 || !strings.HasPrefix(rf[2], prefix) {
					continue
				}
				checked++
				// Like gdb, and unlike binutils, elfx drops the legacy
				// ::h<hash> suffix.
				want := rustHash.ReplaceAllString(df[2], "")
				if got := Demangle(rf[2]); got != want {
					bad++
					t.Logf("Demangle(%s) = %q, nm -C %q", rf[2], got, want)
				}
			}
			if checked < 10 {
				t.Fatalf("only %d %s-mangled symbols", checked, mangling)
			}
			// The demangler has known gaps (dependencies.md): v0 names
			// with identifiers starting with _, dropped () generic
			// arguments, and legacy __ident losing an underscore. Allow
			// up to 3 % (or one name).
			if bad > 1 && bad*100 > checked*3 {
				t.Errorf("%d of %d names differ from nm -C", bad, checked)
			}
			t.Logf("%d of %d names differ from nm -C", bad, checked)

			var addrs []uint64
			for _, name := range []string{"prog::main", "prog::count"} {
				s, ok := o.LookupSymbol(name)
				if !ok {
					t.Errorf("LookupSymbol(%q) not found", name)
					continue
				}
				for a := s.Addr; a < s.Addr+s.Size; a += 3 {
					addrs = append(addrs, a)
				}
			}
			compareWithAddr2line(t, o, bin, addrs)
		})
	}
}

// TestGoPclntab checks the .gopclntab fallback of a Go binary without
// DWARF against go tool addr2line, which reads the same table.
func TestGoPclntab(t *testing.T) {
	goTool := testenv.NeedTool(t, "go")
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(goProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module prog\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	run(t, dir, goTool, "build", "-ldflags=-w", "-o", bin, ".")
	o := mustOpen(t, bin)
	if o.hasDWARF() {
		t.Fatal("-ldflags=-w left DWARF in the binary")
	}
	s, ok := o.LookupSymbol("main.work")
	if !ok {
		t.Fatal("main.work not found")
	}
	var addrs []string
	var pcs []uint64
	for a := s.Addr; a < s.Addr+s.Size; a += 2 {
		addrs = append(addrs, "0x"+strconv.FormatUint(a, 16))
		pcs = append(pcs, a)
	}
	cmd := runWithStdin(t, dir, strings.Join(addrs, "\n")+"\n", goTool, "tool", "addr2line", bin)
	sc := bufio.NewScanner(strings.NewReader(cmd))
	for _, pc := range pcs {
		if !sc.Scan() {
			t.Fatal("go tool addr2line: short output")
		}
		fn := sc.Text()
		sc.Scan()
		loc := sc.Text()
		fr, err := o.SourceFrames(pc)
		if err != nil || len(fr) != 1 {
			t.Fatalf("SourceFrames(%#x) = %v, %v", pc, fr, err)
		}
		if got := fr[0].Function; got != fn || fr[0].File+":"+strconv.Itoa(fr[0].Line) != loc {
			t.Errorf("%#x: got %s %s:%d, go tool addr2line %s %s", pc, got, fr[0].File, fr[0].Line, fn, loc)
		}
	}
}

// TestGoDWARF checks a Go binary with DWARF (the default) against
// addr2line, inlined calls included.
func TestGoDWARF(t *testing.T) {
	goTool := testenv.NeedTool(t, "go")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(goProgram), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module prog\n\ngo 1.21\n"), 0o644)
	bin := filepath.Join(dir, "prog")
	run(t, dir, goTool, "build", "-o", bin, ".")
	o := mustOpen(t, bin)
	s, ok := o.LookupSymbol("main.main")
	if !ok {
		t.Fatal("main.main not found")
	}
	fr, err := o.SourceFrames(s.Addr)
	if err != nil || len(fr) == 0 || fr[len(fr)-1].Function != "main.main" || !strings.HasSuffix(fr[len(fr)-1].File, "main.go") {
		t.Errorf("SourceFrames(main.main) = %+v, %v", fr, err)
	}
	if o.Machine() != elf.EM_X86_64 && o.Machine() != elf.EM_AARCH64 {
		t.Errorf("Machine = %v", o.Machine())
	}
}

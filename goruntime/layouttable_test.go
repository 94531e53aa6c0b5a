package goruntime

import (
	"debug/buildinfo"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestTableMatchesDWARF: the generated table's layouts for the release
// and architecture of a program the host's toolchain builds are those
// its DWARF gives, and so are its wait reasons.
func TestTableMatchesDWARF(t *testing.T) {
	for _, goarch := range []string{"amd64", "386"} {
		t.Run(goarch, func(t *testing.T) {
			exe := buildGoProgram(t, goarch)
			bi, err := buildinfo.ReadFile(exe)
			if err != nil {
				t.Fatal(err)
			}
			f, err := elf.Open(exe)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := f.DWARF()
			if err != nil {
				t.Fatal(err)
			}
			wantL, wantP, wantI, err := layoutFromDWARF(d)
			if err != nil {
				t.Fatal(err)
			}
			structs, err := tableStructs(bi.GoVersion, goarch)
			if err != nil {
				t.Fatal(err)
			}
			gotL, gotP, _, err := layoutOf(structs)
			if err != nil {
				t.Fatal(err)
			}
			// With the DWARF beside it, the table's reader takes what the
			// table lacks (the scheduler's clocks, the label types) from it.
			_, _, gotI, err := readLayout(&Binary{Version: bi.GoVersion, GOARCH: goarch, DWARF: d})
			if err != nil {
				t.Fatal(err)
			}
			if gotI != wantI {
				t.Errorf("%s %s: table and DWARF %+v\nDWARF %+v", bi.GoVersion, goarch, gotI, wantI)
			}
			if gotL != wantL || gotP != wantP {
				t.Errorf("%s %s: table %+v %+v\nDWARF %+v %+v", bi.GoVersion, goarch, gotL, gotP, wantL, wantP)
			}
			if !wantP.ok {
				t.Errorf("no panic layout")
			}
			if n := len(tableWaitReasons(bi.GoVersion)); n < 20 {
				t.Errorf("%d wait reasons for %s", n, bi.GoVersion)
			}
		})
	}
}

// TestRelease: runtime version strings name their release.
func TestRelease(t *testing.T) {
	for v, want := range map[string]string{
		"go1.26.8": "go1.26", "go1.20": "go1.20", "go1.21rc2": "go1.21", "go1.22.12 X:nocoverageredesign": "",
		"devel go1.27-abcdef": "", "go1.": "", "gccgo": "", "go1.2x": "",
	} {
		got, ok := release(v)
		if got != want || ok != (want != "") {
			t.Errorf("release(%q) = %q, %v; want %q", v, got, ok, want)
		}
	}
}

// TestAllgsFromCode: runtime.allgs found in runtime.allgadd's code is
// where the symbol table says, on amd64, 386 and arm64.
func TestAllgsFromCode(t *testing.T) {
	for _, goarch := range []string{"amd64", "386", "arm64"} {
		t.Run(goarch, func(t *testing.T) {
			f, err := elf.Open(buildGoProgram(t, goarch))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			var allgadd elf.Symbol
			var allgs uint64
			for _, s := range syms {
				switch s.Name {
				case FuncAllgadd:
					allgadd = s
				case SymAllgs:
					allgs = s.Value
				}
			}
			if allgadd.Size == 0 || allgs == 0 {
				t.Fatalf("no %s or %s symbol", FuncAllgadd, SymAllgs)
			}
			text := f.Section(".text")
			code := make([]byte, allgadd.Size)
			if _, err := text.ReadAt(code, int64(allgadd.Value-text.Addr)); err != nil {
				t.Fatal(err)
			}
			bits := 64
			if f.Class == elf.ELFCLASS32 {
				bits = 32
			}
			decode := func(code []byte) (uint64, bool) { return AllgsFromCode(code, allgadd.Value, bits) }
			if f.Machine == elf.EM_AARCH64 {
				decode = func(code []byte) (uint64, bool) { return AllgsFromARM64Code(code, allgadd.Value) }
			}
			got, ok := decode(code)
			if !ok || got != allgs {
				t.Errorf("allgs at %#x (%v), the symbol at %#x", got, ok, allgs)
			}
			// Other code names no slice.
			if _, ok := decode(code[:16]); ok {
				t.Errorf("allgs found in the prologue alone")
			}
		})
	}
}

// FuzzAllgsFromARM64Code: any bytes decode to an answer or none, never
// a panic or a hang.
func FuzzAllgsFromARM64Code(f *testing.F) {
	// ADRP x27; ADD x27, x27, #112; LDP x0, x1, [x27]; LDR x2, [x27, #16]
	f.Add([]byte{0xbb, 0x08, 0x00, 0xd0, 0x7b, 0xc3, 0x01, 0x91, 0x60, 0x07, 0x40, 0xa9, 0x62, 0x0b, 0x40, 0xf9}, uint64(0x53f40))
	f.Add([]byte{0x1f, 0x20, 0x03, 0xd5}, uint64(0))
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		AllgsFromARM64Code(code, pc)
	})
}

// FuzzAllgsFromCode: any bytes decode to an answer or none, never a
// panic or a hang.
func FuzzAllgsFromCode(f *testing.F) {
	f.Add([]byte{0x48, 0x8b, 0x0d, 0x1e, 0xee, 0x10, 0x00, 0x48, 0x8b, 0x1d, 0x0f, 0xee, 0x10, 0x00}, true)
	f.Add([]byte{0xa1, 0x10, 0x20, 0x30, 0x40}, false)
	f.Fuzz(func(t *testing.T, code []byte, wide bool) {
		bits := 32
		if wide {
			bits = 64
		}
		AllgsFromCode(code, 0x401000, bits)
	})
}

// buildGoProgram builds goProgram for goarch, once per test, and returns
// the executable.
func buildGoProgram(t *testing.T, goarch string) string {
	t.Helper()
	return buildGoSource(t, goProgram, "GOARCH="+goarch, "CGO_ENABLED=0")
}

// buildGoSource builds the program src with env added to the
// environment, and returns the executable.
func buildGoSource(t *testing.T, src string, env ...string) string {
	t.Helper()
	gotool := testenv.NeedTool(t, "go")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "prog")
	cmd := exec.Command(gotool, "build", "-o", exe, "main.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatal(fmt.Errorf("go build: %v\n%s", err, out))
	}
	return exe
}

// TestTableEveryRelease: every release and architecture of the table
// gives the layouts goroutines and panic values are read with (Go 1.20's
// type descriptor is runtime._type, not internal/abi.Type).
func TestTableEveryRelease(t *testing.T) {
	if len(generatedLayouts) < 7*7 {
		t.Errorf("%d layouts in the table, want 7 releases by 7 arches", len(generatedLayouts))
	}
	for key := range generatedLayouts {
		rel, goarch, _ := strings.Cut(key, "/")
		structs, err := tableStructs(rel+".1", goarch)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		l, pl, _, err := layoutOf(structs)
		if err != nil || !pl.ok {
			t.Errorf("%s: layout %+v, panic layout %+v, %v", key, l, pl, err)
		}
		if len(tableWaitReasons(rel)) < 20 {
			t.Errorf("%s: %d wait reasons", key, len(tableWaitReasons(rel)))
		}
	}
}

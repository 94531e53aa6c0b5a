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
// its DWARF gives (runtime.g, the panic's types, and what describes a
// goroutine beyond its stack: the scheduler's clocks and the label
// types), and so are its wait reasons; the table alone is read, no
// DWARF walk. A program that sets no labels has no label types in its
// DWARF (labelsNone), its goroutines no labels to read: the table's
// reading of them is the labelled program's, the rest the same.
func TestTableMatchesDWARF(t *testing.T) {
	for _, goarch := range []string{"amd64", "386", "arm64"} {
		for _, prog := range []struct{ name, src string }{{"labels", labelsProgram}, {"plain", goProgram}} {
			t.Run(goarch+"/"+prog.name, func(t *testing.T) {
				exe := buildGoSource(t, prog.src, "GOARCH="+goarch, "CGO_ENABLED=0")
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
				if !TableHas(bi.GoVersion, goarch) {
					t.Fatalf("the table lacks layouts of %s on %s: the DWARF would be read", bi.GoVersion, goarch)
				}
				// No DWARF given: what the reader reads, from the table.
				gotL, gotP, gotI, err := readLayout(&Binary{Version: bi.GoVersion, GOARCH: goarch})
				if err != nil {
					t.Fatal(err)
				}
				if prog.name == "plain" {
					if wantI.labelsAs != labelsNone {
						t.Errorf("a program without labels has label types: %+v", wantI)
					}
					wantI.labelsAs, wantI.hmapCount, wantI.hmapB, wantI.hmapBuckets = gotI.labelsAs, gotI.hmapCount, gotI.hmapB, gotI.hmapBuckets
				}
				if gotI != wantI {
					t.Errorf("%s %s: table %+v\nDWARF %+v", bi.GoVersion, goarch, gotI, wantI)
				}
				if gotL != wantL || gotP != wantP {
					t.Errorf("%s %s: table %+v %+v\nDWARF %+v %+v", bi.GoVersion, goarch, gotL, gotP, wantL, wantP)
				}
				if !wantP.ok || gotI.schedLastpoll < 0 || gotI.tickSchedwhen < 0 || gotI.workTstart < 0 || gotI.labelsAs != labelsSlice {
					t.Errorf("the table lacks the panic's layout, a clock or the label types: %+v %+v", gotP, gotI)
				}
				if n := len(tableWaitReasons(bi.GoVersion)); n < 20 {
					t.Errorf("%d wait reasons for %s", n, bi.GoVersion)
				}
			})
		}
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
// type descriptor is runtime._type, not internal/abi.Type), their wait
// times and their labels.
func TestTableEveryRelease(t *testing.T) {
	if len(generatedLayouts) < 7*7 {
		t.Errorf("%d layouts in the table, want 7 releases by 7 arches", len(generatedLayouts))
	}
	for _, g := range generatedLayouts {
		key := g.key
		rel, goarch, _ := strings.Cut(key, "/")
		structs, err := tableStructs(rel+".1", goarch)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		l, pl, il, err := layoutOf(structs)
		if err != nil || !pl.ok {
			t.Errorf("%s: layout %+v, panic layout %+v, %v", key, l, pl, err)
		}
		// The clocks and the label types, so that no DWARF is read:
		// labels in a map before Go 1.24, in a sorted slice since.
		wantLabels := labelsSlice
		if rel < "go1.24" {
			wantLabels = labelsMap
		}
		if !tableComplete(structs) || il.schedLastpoll < 0 || il.pSysmontick < 0 || il.tickSchedwhen < 0 ||
			il.tickSyscallwhen < 0 || il.workTstart < 0 || il.labelsAs != wantLabels {
			t.Errorf("%s: the table lacks a clock or the label types: %+v", key, il)
		}
		if len(tableWaitReasons(rel)) < 20 {
			t.Errorf("%s: %d wait reasons", key, len(tableWaitReasons(rel)))
		}
	}
}

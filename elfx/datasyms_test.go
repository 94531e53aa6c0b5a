package elfx

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// debugELFDataSymbols is what DataSymbols reads, through debug/elf's
// Symbols (the reference: readRustStatics' former reader).
func debugELFDataSymbols(f *elf.File) []DataSymbol {
	syms, _ := f.Symbols()
	var out []DataSymbol
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		if typ != elf.STT_OBJECT && typ != elf.STT_TLS || s.Section == elf.SHN_UNDEF {
			continue
		}
		out = append(out, DataSymbol{Name: s.Name, Value: s.Value, TLS: typ == elf.STT_TLS})
	}
	return out
}

func dataSymbols(o *Object) []DataSymbol {
	var out []DataSymbol
	o.DataSymbols(func(s DataSymbol) { out = append(out, s) })
	return out
}

// dataSymbolsProg has data symbols of each kind: global, static,
// thread-local, C++ mangled.
const dataSymbolsProg = `#include <cstdio>
namespace store { int stock = 3; static thread_local int served; }
static int counts[4];
thread_local long last;
int main(int argc, char **) { store::served = argc; counts[argc & 3]++; last = argc; std::printf("%d\n", store::stock + store::served); }
`

// TestDataSymbolsAreDebugELFs: DataSymbols lists the entries, names,
// values and kinds that debug/elf's Symbols gives, in the same order,
// in a C++ program, a Go program and a Rust one.
func TestDataSymbolsAreDebugELFs(t *testing.T) {
	gxx := testenv.NeedTool(t, "g++")
	rustc := testenv.NeedTool(t, "rustc")
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.cc")
	if err := os.WriteFile(src, []byte(dataSymbolsProg), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Build(t, gxx, "-O1", "-o", filepath.Join(dir, "cxx"), src)
	rs := filepath.Join(dir, "main.rs")
	if err := os.WriteFile(rs, []byte(`fn main() { std::thread::spawn(|| println!("{:?}", std::thread::current().name())).join().unwrap(); }`), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Build(t, rustc, "-g", "-o", filepath.Join(dir, "rust"), rs)
	for _, prog := range []string{filepath.Join(dir, "cxx"), filepath.Join(dir, "rust"), buildGoCodeProgram(t, goCodeProgram)} {
		o := mustOpen(t, prog)
		got, want := dataSymbols(o), debugELFDataSymbols(o.ELF())
		hasTLS := slices.ContainsFunc(want, func(s DataSymbol) bool { return s.TLS })
		if len(want) < 5 || !hasTLS && filepath.Base(prog) != "prog" {
			t.Errorf("%s: debug/elf gives %d data symbols, thread-local ones: %v", filepath.Base(prog), len(want), hasTLS)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: DataSymbols gives %d symbols, debug/elf %d:\n%v\n%v", filepath.Base(prog), len(got), len(want), got, want)
		}
	}
}

// FuzzDataSymbols: on any image, DataSymbols gives debug/elf's entries
// (its names where the string table is readable: debug/elf reads a
// table it cannot read as empty names, DataSymbols gives no entries).
func FuzzDataSymbols(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	if exe, err := exec.LookPath("true"); err == nil {
		if b, err := os.ReadFile(exe); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := NewObject(bytes.NewReader(data), int64(len(data)), "fuzz")
		if err != nil {
			return
		}
		defer o.Close()
		got, want := dataSymbols(o), debugELFDataSymbols(o.ELF())
		if len(got) == 0 {
			return
		}
		if !slices.Equal(got, want) {
			t.Errorf("DataSymbols gives %d symbols, debug/elf %d:\n%v\n%v", len(got), len(want), got, want)
		}
	})
}

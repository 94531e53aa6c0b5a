package elfx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// twoHelpers are two C units, each with a function called helper: the
// first unit's global, the second's static. Local symbols come first in
// .symtab, so the first helper listed is the second unit's, at the
// higher address: the table's choice (the lowest address) is not the
// first entry met.
const twoHelpersA = `int __attribute__((noinline)) helper(int n) { return n + 1; }
int b(int);
int main(int argc, char **argv) { return helper(argc) + b(argc); }
`

const twoHelpersB = `static int __attribute__((noinline)) helper(int n) { return n * 3; }
int b(int n) { return helper(n); }
`

// TestRawSymbolsAreLookupRawSymbols: LookupRawSymbols answers each name
// as LookupRawSymbol does, in Go programs (assembly functions with their
// .abi0 twins, cgo's C functions, PIE), in a C program with two static
// functions of one name and in libc, without building the symbol table;
// once the table is built it answers the same from it.
func TestRawSymbolsAreLookupRawSymbols(t *testing.T) {
	testenv.NeedTool(t, "gcc")
	names := []string{
		"runtime.sigpanic", "runtime.sigtramp", "runtime.goexit", "runtime.goexit.abi0",
		"runtime.rt0_go", "runtime.rt0_go.abi0", "runtime.clone", "runtime.clone.abi0",
		"runtime.mstart", "runtime.mstart.abi0", "runtime.mstart0", "runtime.asmcgocall",
		"runtime.asmcgocall.abi0", "runtime.cgocallback", "runtime.cgocallback.abi0",
		"crosscall2", "main.main", "twice", "malloc", "abort", "_start", "",
		"runtime.no_such_function", "runtime.goexit.abi0x", "helper",
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b.c"), []byte(twoHelpersB), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{
		"go":      buildGoCodeProgram(t, goCodeProgram),
		"cgo":     buildGoCodeProgram(t, goCgoCodeProgram),
		"cgo-pie": buildGoCodeProgram(t, goCgoCodeProgram, "-buildmode=pie"),
		"c":       testenv.BuildC(t, dir, "twohelpers", twoHelpersA, "-O1", filepath.Join(dir, "b.c")),
	}
	if libc, _ := filepath.Glob("/lib/*-linux-gnu/libc.so.6"); len(libc) > 0 {
		paths["libc"] = libc[0]
	} else {
		testenv.Unavailable(t, "no libc.so.6")
	}
	for prog, path := range paths {
		t.Run(prog, func(t *testing.T) {
			want := map[string]Symbol{}
			one := mustOpen(t, path)
			for _, name := range names {
				if s, ok := one.LookupRawSymbol(name); ok {
					want[name] = s
				}
			}
			if prog == "c" {
				// The case holds: the table's helper is not the first
				// the symbol table lists.
				syms, _ := one.ELF().Symbols()
				for _, s := range syms {
					if s.Name == "helper" {
						if s.Value == want["helper"].Addr {
							t.Fatalf("the first helper in .symtab, %#x, is the table's choice", s.Value)
						}
						break
					}
				}
			} else if prog != "libc" && len(want) < 10 {
				t.Fatalf("LookupRawSymbol found only %v", want)
			}
			o := mustOpen(t, path)
			compare := func(how string, got map[string]Symbol) {
				t.Helper()
				for _, name := range names {
					g, gok := got[name]
					w, wok := want[name]
					if gok != wok || g != w {
						t.Errorf("%s: %q = %+v, %v; LookupRawSymbol: %+v, %v", how, name, g, gok, w, wok)
					}
				}
				if len(got) != len(want) {
					t.Errorf("%s: %d answers, LookupRawSymbol %d", how, len(got), len(want))
				}
			}
			compare("scan", o.LookupRawSymbols(names))
			if o.state().symsBuilt.Load() {
				t.Errorf("LookupRawSymbols built the symbol table")
			}
			o.symbols()
			compare("table", o.LookupRawSymbols(names))
		})
	}
}

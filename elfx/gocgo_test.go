package elfx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestGoFuncCgo: in a cgo program (linked by the C linker, its C
// start-up code first in .text) the function table names each Go
// function where the symbol table has it: entries are offsets from
// moduledata.text, not from the .text section's start.
func TestGoFuncCgo(t *testing.T) {
	goTool := testenv.NeedTool(t, "go")
	testenv.NeedTool(t, "gcc")
	dir := t.TempDir()
	prog := "package main\n\n// static int twice(int n) { return 2 * n; }\nimport \"C\"\n\nimport \"os\"\n\nfunc main() { os.Exit(int(C.twice(C.int(len(os.Args)))) & 1) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module prog\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "prog")
	run(t, dir, goTool, "build", "-o", exe, ".")
	o := mustOpen(t, exe)
	if text := o.ELF().Section(".text"); text == nil {
		t.Fatal("no .text")
	}
	for _, name := range []string{"main.main", "runtime.gopark", "runtime.asmcgocall.abi0", "runtime.cgocall"} {
		s, ok := o.LookupSymbol(name)
		if !ok {
			t.Fatalf("no symbol %s", name)
		}
		f, ok := o.GoFunc(s.Addr)
		// The table's end is the next function's entry: past the
		// symbol's size by the padding.
		if !ok || f.Name != strings.TrimSuffix(name, ".abi0") || f.Entry != s.Addr || f.End < s.Addr+s.Size {
			t.Errorf("%s at %#x..%#x: the function table says %q at %#x..%#x (%v)", name, s.Addr, s.Addr+s.Size, f.Name, f.Entry, f.End, ok)
		}
	}
}

package elfx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// goInlineProgram has calls the compiler inlines (twice over, into
// main.work).
const goInlineProgram = `package main

import "os"

func leaf(n int) int { return n*3 + len(os.Args) }

func middle(n int) int { return leaf(n+1) * 2 }

//go:noinline
func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += middle(i)
	}
	return s
}

func main() { os.Exit(work(10) & 1) }
`

// TestGoStripped: a Go executable stripped of symbols and DWARF
// (-ldflags=-s -w) is named, lined and unwound from its .gopclntab as
// the same build with them is from its symbols and DWARF: the function
// and its bounds at each address, the inlined calls with their files and
// lines, and call frame information with the linker's rows.
func TestGoStripped(t *testing.T) {
	goTool := testenv.NeedTool(t, "go")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(goInlineProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module prog\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	full, stripped := filepath.Join(dir, "full"), filepath.Join(dir, "stripped")
	run(t, dir, goTool, "build", "-o", full, ".")
	run(t, dir, goTool, "build", "-ldflags=-s -w", "-o", stripped, ".")
	f, s := mustOpen(t, full), mustOpen(t, stripped)
	if s.hasDWARF() || len(s.symbols().all) != 0 {
		t.Fatal("-ldflags=-s -w left symbols or DWARF")
	}
	work, ok := f.LookupSymbol("main.work")
	if !ok {
		t.Fatal("no main.work in the full build")
	}
	if got, ok := s.LookupSymbol("main.work"); !ok || got.Addr != work.Addr {
		t.Errorf("stripped main.work %+v, %v; the symbol table's %+v", got, ok, work)
	}
	// The full build's frames from its DWARF index: its SourceFrames
	// answers Go code from the table too (inGoCode).
	x, err := f.dwarfIndex()
	if err != nil || x == nil {
		t.Fatalf("no DWARF index in the full build: %v", err)
	}
	inlined := 0
	for pc := work.Addr; pc < work.Addr+work.Size; pc++ {
		want, _ := f.Symbol(pc)
		got, ok := s.Symbol(pc)
		if !ok || got.Name != want.Name || got.Addr != want.Addr {
			t.Fatalf("%#x: symbol %+v, %v; the symbol table's %+v", pc, got, ok, want)
		}
		wantFr, err := x.sourceFrames(pc, f)
		if err != nil || len(wantFr) == 0 {
			continue // padding: no line in the DWARF
		}
		gotFr, _ := s.SourceFrames(pc)
		if len(gotFr) != len(wantFr) {
			t.Fatalf("%#x: frames %+v; the DWARF's %+v", pc, gotFr, wantFr)
		}
		for i := range wantFr {
			g, w := gotFr[i], wantFr[i]
			if g.Function != w.Function || g.File != w.File || g.Line != w.Line || g.Inlined != w.Inlined {
				t.Fatalf("%#x: frame %d %+v; the DWARF's %+v", pc, i, g, w)
			}
		}
		if len(gotFr) > 2 {
			inlined++
		}
		wantFDE, err := f.FindFDE(pc)
		if err != nil {
			t.Fatalf("%#x: the linker's FDE: %v", pc, err)
		}
		gotFDE, err := s.FindFDE(pc)
		if err != nil {
			t.Fatalf("%#x: no FDE in the stripped build: %v", pc, err)
		}
		wr, _ := wantFDE.RowAt(pc)
		gr, err := gotFDE.RowAt(pc)
		if err != nil || gr.CFA.Reg != wr.CFA.Reg || gr.CFA.Offset != wr.CFA.Offset {
			t.Fatalf("%#x: CFA r%d%+d (%v), the linker's r%d%+d", pc, gr.CFA.Reg, gr.CFA.Offset, err, wr.CFA.Reg, wr.CFA.Offset)
		}
	}
	if inlined == 0 {
		t.Error("no address of main.work has main.leaf inlined into main.middle")
	}
}

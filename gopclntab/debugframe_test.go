package gopclntab

import (
	"debug/elf"
	"testing"

	"github.com/coreunwind/coreunwind/elfx/cfi"
)

// TestDebugFrameAsLinker: the .debug_frame written from the table gives,
// at every instruction of the functions compared, the rows of the one
// the Go linker wrote into the DWARF build (frame address and where the
// return address is), so a stripped build unwinds as the DWARF one
// does: on x86 (the return address pushed) and arm64 (a link register).
func TestDebugFrameAsLinker(t *testing.T) {
	for _, c := range []struct {
		goarch string
		ra     uint64 // the return address column
	}{{"amd64", 16}, {"386", 8}, {"arm64", 30}} {
		t.Run(c.goarch, func(t *testing.T) {
			t.Parallel()
			tab, f, _ := openTable(t, buildInlinedFor(t, c.goarch))
			debugFrameAsLinker(t, tab, f, c.ra)
		})
	}
}

func debugFrameAsLinker(t *testing.T, tab *Table, f *elf.File, ra uint64) {
	sec := f.Section(".debug_frame")
	if sec == nil {
		t.Fatal("the DWARF build has no .debug_frame")
	}
	linkerData, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	linker, err := cfi.NewDebugFrame(linkerData, sec.Addr, f.ByteOrder, tab.PtrSize())
	if err != nil {
		t.Fatal(err)
	}
	data, err := tab.DebugFrame(f.Machine)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := cfi.NewDebugFrame(data, 0, f.ByteOrder, tab.PtrSize())
	if err != nil {
		t.Fatal(err)
	}
	rows, funcs, i := 0, 0, 0
	err = tab.Funcs(func(fn Func) bool {
		// Every instruction of one function in 8 (the runtime's
		// assembly among them): all of them take seconds.
		if i++; i%8 != 0 {
			return true
		}
		want, err := linker.FDEForPC(fn.Entry)
		if err != nil {
			return true // the linker writes no FDE for a function without pcsp
		}
		got, err := ours.FDEForPC(fn.Entry)
		if err != nil {
			t.Errorf("%s: no FDE: %v", fn.Name, err)
			return false
		}
		if got.Begin != want.Begin || got.End != want.End {
			t.Errorf("%s: FDE [%#x,%#x), the linker's [%#x,%#x)", fn.Name, got.Begin, got.End, want.Begin, want.End)
			return false
		}
		funcs++
		for pc := fn.Entry; pc < want.End; pc++ {
			wr, werr := want.RowAt(pc)
			gr, gerr := got.RowAt(pc)
			if (werr == nil) != (gerr == nil) {
				t.Errorf("%s at %#x: row error %v, the linker's %v", fn.Name, pc, gerr, werr)
				return false
			}
			if werr != nil {
				continue
			}
			if gr.CFA.Reg != wr.CFA.Reg || gr.CFA.Offset != wr.CFA.Offset || !sameRule(gr.Rule(ra), wr.Rule(ra)) {
				t.Errorf("%s at %#x: CFA r%d%+d, ra %+v; the linker's CFA r%d%+d, ra %+v",
					fn.Name, pc, gr.CFA.Reg, gr.CFA.Offset, gr.Rule(ra), wr.CFA.Reg, wr.CFA.Offset, wr.Rule(ra))
				return false
			}
			rows++
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if funcs < 200 || rows < 10000 {
		t.Errorf("only %d functions, %d rows compared", funcs, rows)
	}
}

// TestDebugFrameMachines: a frame table only for the machines Go targets.
func TestDebugFrameMachines(t *testing.T) {
	data, _ := craftedTable()
	tab, err := Parse(data, craftedText)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.DebugFrame(elf.EM_SPARCV9); err == nil {
		t.Error("a frame table for a machine Go does not target")
	}
	if _, err := tab.DebugFrame(elf.EM_X86_64); err != nil {
		t.Error(err)
	}
}

func sameRule(a, b cfi.Rule) bool {
	return a.Kind == b.Kind && a.Offset == b.Offset && a.Reg == b.Reg && string(a.Expr) == string(b.Expr)
}

package main

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/i386"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/x86_64"
)

func init() {
	tablesBuilders[elf.EM_X86_64] = cfiTables("x86_64", x86_64.RegName)
	tablesBuilders[elf.EM_386] = cfiTables("i386", i386.RegName)
}

// cfiTables lists the FDEs of .eh_frame (or .debug_frame) with their rows
// in readelf's frames-interp style, registers named by regName.
func cfiTables(arch string, regName func(uint64) string) tablesBuilder {
	return func(obj *elfx.Object, path, section string) (*report.Tables, error) {
		return dwarfTables(obj, path, section, arch, regName)
	}
}

func dwarfTables(obj *elfx.Object, path, section, arch string, regName func(uint64) string) (*report.Tables, error) {
	eh, dbg, terr := obj.UnwindTables()
	t := &report.Tables{Arch: arch}
	if terr != nil {
		t.Warnings = append(t.Warnings, terr.Error())
	}
	tab := eh
	switch section {
	case ".debug_frame":
		tab = dbg
	case "", ".eh_frame":
		if tab == nil && section == "" {
			tab = dbg
		}
	default:
		return nil, fmt.Errorf("--section %q: want .eh_frame or .debug_frame", section)
	}
	if tab == nil {
		return nil, fmt.Errorf("%s: no CFI (.eh_frame or .debug_frame)", path)
	}
	t.Section = tab.Section()
	fdes, err := tab.FDEs()
	if err != nil {
		t.Warnings = append(t.Warnings, err.Error())
	}
	for _, f := range fdes {
		e := report.TableEntry{Start: report.Hex(f.Begin), End: report.Hex(f.End)}
		if f.CIE.Personality != 0 {
			e.Personality = report.Ptr(report.Hex(f.CIE.Personality))
		}
		if f.LSDA != 0 {
			e.Handler = report.Ptr(report.Hex(f.LSDA))
		}
		if s, ok := obj.Symbol(f.Begin); ok && s.Addr == f.Begin {
			e.Function = report.Ptr(s.Name)
		}
		rows, err := f.Rows()
		if err != nil {
			t.Warnings = append(t.Warnings, fmt.Sprintf("FDE %#x..%#x: %v", f.Begin, f.End, err))
		}
		for _, r := range rows {
			e.Records = append(e.Records, cfi.FormatRow(r, regName, f.CIE.RAColumn))
		}
		t.Entries = append(t.Entries, e)
	}
	return t, nil
}

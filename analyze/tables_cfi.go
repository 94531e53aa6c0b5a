package analyze

import (
	"fmt"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/report"
)

// cfiTables lists the FDEs of .eh_frame (or .debug_frame) with their
// rows in readelf's frames-interp style, registers named by regName
// (readelf's "r<N>" where it returns "").
func cfiTables(obj *elfx.Object, path, section, arch string, regName func(uint64) string) (*report.Tables, error) {
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
		return nil, errSection(section, ".eh_frame or .debug_frame")
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

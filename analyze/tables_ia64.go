package analyze

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/ia64/unwtab"
	"github.com/coreunwind/coreunwind/report"
)

func init() { tablesDecoders[elf.EM_IA_64] = ia64Tables }

// ia64Tables lists .IA_64.unwind with each entry's info block decoded
// into readelf -u's record strings; the zero padding that ends most info
// blocks is counted, not listed.
func ia64Tables(obj *elfx.Object, path, section string) (*report.Tables, error) {
	if section != "" && section != ".IA_64.unwind" {
		return nil, fmt.Errorf("--section %q: IA-64 objects have .IA_64.unwind", section)
	}
	tab, err := unwtab.ReadTable(obj.ELF())
	if errors.Is(err, unwtab.ErrNoTable) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	t := &report.Tables{Arch: "ia64", Section: ".IA_64.unwind", Warnings: tab.Warnings}
	for i := range tab.Entries {
		e := &tab.Entries[i]
		te := report.TableEntry{Start: report.Hex(e.Start), End: report.Hex(e.End), InfoOffset: report.Ptr(report.Hex(e.InfoOffset))}
		if s, ok := obj.Symbol(e.Start); ok && s.Addr == e.Start {
			te.Function = report.Ptr(s.Name)
		}
		info, err := e.Info()
		if info != nil {
			te.Version = report.Ptr(int(info.Version))
			te.Flags = info.FlagNames()
			te.Length = report.Ptr(int(info.Length))
			if info.HasPersonality {
				te.Personality = report.Ptr(report.Hex(info.Personality))
			}
		}
		if err != nil {
			t.Warnings = append(t.Warnings, fmt.Sprintf("entry [%#x-%#x): %v", e.Start, e.End, err))
		}
		if info != nil && err == nil {
			recs, derr := unwtab.Decode(info.Desc)
			if derr != nil {
				t.Warnings = append(t.Warnings, fmt.Sprintf("entry [%#x-%#x): %v", e.Start, e.End, derr))
			}
			recs, pad := unwtab.TrimPadding(recs)
			for _, r := range recs {
				te.Records = append(te.Records, r.String())
			}
			if pad > 0 {
				te.PaddingRecords = report.Ptr(pad)
			}
		}
		t.Entries = append(t.Entries, te)
	}
	return t, nil
}

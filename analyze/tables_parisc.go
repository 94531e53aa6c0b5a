package analyze

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/pa64/unwtab"
	"github.com/coreunwind/coreunwind/report"
)

func init() { tablesDecoders[elf.EM_PARISC] = pariscTables }

// pariscTables lists the .PARISC.unwind entries in section order, as
// readelf -u does, each with its descriptor in readelf's spelling.
func pariscTables(obj *elfx.Object, path, section string) (*report.Tables, error) {
	if section != "" && section != unwtab.SectionName {
		return nil, fmt.Errorf("--section %q: PA-RISC objects have %s only", section, unwtab.SectionName)
	}
	arch := "hppa"
	if obj.ELF().Class == elf.ELFCLASS64 {
		arch = "hppa64"
	}
	tab, err := unwtab.ReadTable(obj.ELF())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t := &report.Tables{Arch: arch, Section: unwtab.SectionName, Warnings: tab.Warnings}
	for _, e := range tab.Entries {
		te := report.TableEntry{Start: report.Hex(e.Start), End: report.Hex(e.End), Descriptor: e.Desc.Flags()}
		if s, ok := obj.Symbol(e.Start); ok && s.Addr == e.Start {
			te.Function = report.Ptr(s.Name)
		}
		if te.Descriptor == nil {
			te.Descriptor = []string{}
		}
		t.Entries = append(t.Entries, te)
	}
	return t, nil
}

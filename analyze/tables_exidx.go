// The file is not called tables_arm.go: the _arm suffix would build it
// only for GOARCH=arm.

package analyze

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/arm"
	"github.com/coreunwind/coreunwind/arm/exidx"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/report"
)

func init() { tablesDecoders[elf.EM_ARM] = armTables }

// armTables lists the ARM EHABI index (.ARM.exidx, every such section of
// a relocatable object) with each entry's unwind opcodes decoded into
// readelf -u's strings. DWARF CFI of ARM objects is listed with
// --section .eh_frame or .debug_frame.
func armTables(obj *elfx.Object, path, section string) (*report.Tables, error) {
	switch section {
	case "", ".ARM.exidx":
	case ".eh_frame", ".debug_frame":
		return cfiTables(obj, path, section, "arm", armRegName)
	default:
		return nil, errSection(section, ".ARM.exidx, .eh_frame or .debug_frame")
	}
	tab, err := exidx.ReadTable(obj.ELF())
	if errors.Is(err, exidx.ErrNoTable) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	t := &report.Tables{Arch: "arm", Section: ".ARM.exidx", Warnings: tab.Warnings}
	rel := obj.ELF().Type == elf.ET_REL
	for i := range tab.Entries {
		e := &tab.Entries[i]
		te := report.TableEntry{Start: report.Hex(e.Start), End: report.Hex(e.End), ExidxWord: report.Ptr(report.Hex(e.Word))}
		if !rel { // a relocatable object's offsets are not addresses of symbols
			if s, ok := obj.Symbol(e.Start); ok && s.Addr == e.Start {
				te.Function = report.Ptr(s.Name)
			}
		}
		if e.Kind == exidx.KindExtab {
			te.Extab = report.Ptr(report.Hex(e.Extab))
		}
		u, err := e.Unwind()
		switch {
		case errors.Is(err, exidx.ErrCantUnwind):
			te.CantUnwind = true
		case u != nil:
			if u.PersonalityIndex == exidx.Generic {
				te.Personality = report.Ptr(report.Hex(u.Personality))
			} else {
				te.PersonalityIndex = report.Ptr(u.PersonalityIndex)
			}
			for _, op := range exidx.Decode(u.Code) {
				te.Records = append(te.Records, op.String())
			}
		}
		if err != nil && !errors.Is(err, exidx.ErrCantUnwind) {
			t.Warnings = append(t.Warnings, fmt.Sprintf("entry %s+[%#x]: %v", e.Section, e.Start, err))
		}
		t.Entries = append(t.Entries, te)
	}
	return t, nil
}

// armRegName names ARM registers in listed CFI.
func armRegName(r uint64) string { return arm.RegName(r) }

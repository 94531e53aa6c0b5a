package elfx

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"strings"
)

// dwarfSource picks the file that holds the DWARF: the attached debug
// file when it has .debug_info with contents, else the binary itself.
// It returns nil when neither has DWARF.
func (o *Object) dwarfSource() *Object {
	if dbg := o.debugObject(); dbg != nil && dbg.hasDWARF() {
		return dbg
	}
	if o.hasDWARF() {
		return o
	}
	return nil
}

func (o *Object) hasDWARF() bool {
	return o.section(".debug_info") != nil || o.section(".zdebug_info") != nil
}

// maxInflation bounds the declared size of a compressed debug section
// relative to its compressed size. zlib and zstd reach ~1000:1 only on
// degenerate input; real DWARF compresses 3-10:1. A hostile header
// claiming terabytes is rejected before anything is allocated.
const maxInflation = 1024

// loadDWARF builds a dwarf.Data over the object's debug sections.
// Uncompressed sections of a mapped file are used in place; relocatable
// objects and old-style .zdebug sections go through elf.File.DWARF, which
// applies relocations and inflates them.
func (o *Object) loadDWARF() (*dwarf.Data, error) {
	for _, s := range o.ef.Sections {
		if !strings.HasPrefix(s.Name, ".debug_") && !strings.HasPrefix(s.Name, ".zdebug_") {
			continue
		}
		if s.Flags&elf.SHF_COMPRESSED != 0 && s.Size/maxInflation > s.FileSize+1<<20 {
			return nil, fmt.Errorf("elfx: %s: section %s claims %d bytes from %d compressed", o.name, s.Name, s.Size, s.FileSize)
		}
	}
	if o.ef.Type == elf.ET_REL || o.section(".zdebug_info") != nil {
		d, err := o.ef.DWARF()
		if err != nil {
			return nil, fmt.Errorf("elfx: %s: DWARF: %w", o.name, err)
		}
		return d, nil
	}
	sec, err := o.sectionsData(dwarfSections)
	if err != nil {
		return nil, err
	}
	return newDWARFData(o.name, sec, true)
}

// dwarfSections are the sections names, lines and inline chains need:
// not .debug_frame (elfx/cfi reads it), .debug_loc/.debug_loclists,
// .debug_aranges or .debug_pubnames, which are large and unused here.
var dwarfSections = []string{".debug_abbrev", ".debug_info", ".debug_line", ".debug_ranges", ".debug_str",
	".debug_addr", ".debug_line_str", ".debug_str_offsets", ".debug_rnglists", ".debug_types"}

// newDWARFData builds a dwarf.Data over the contents of dwarfSections
// (nil for absent ones). withTypes adds DWARF 4's .debug_types, whose
// type units debug/dwarf parses up front; a single compile unit's Data
// leaves them out, as names and lines never need them.
func newDWARFData(name string, sec [][]byte, withTypes bool) (*dwarf.Data, error) {
	d, err := dwarf.New(sec[0], nil, nil, sec[1], sec[2], nil, sec[3], sec[4])
	if err != nil {
		return nil, fmt.Errorf("elfx: %s: DWARF: %w", name, err)
	}
	// DWARF 5 sections; AddTypes for DWARF 4's .debug_types.
	for i, sname := range dwarfSections[5:] {
		b := sec[5+i]
		if b == nil {
			continue
		}
		if sname == ".debug_types" {
			if withTypes {
				err = d.AddTypes(sname, b)
			}
		} else {
			err = d.AddSection(sname, b)
		}
		if err != nil {
			return nil, fmt.Errorf("elfx: %s: DWARF: %w", name, err)
		}
	}
	return d, nil
}

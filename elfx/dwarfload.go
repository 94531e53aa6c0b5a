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
	get := func(name string) ([]byte, error) {
		s := o.section(".debug_" + name)
		if s == nil {
			return nil, nil
		}
		return o.sectionData(s)
	}
	var sec [8][]byte
	for i, name := range []string{"abbrev", "aranges", "frame", "info", "line", "pubnames", "ranges", "str"} {
		b, err := get(name)
		if err != nil {
			return nil, err
		}
		sec[i] = b
	}
	d, err := dwarf.New(sec[0], sec[1], sec[2], sec[3], sec[4], sec[5], sec[6], sec[7])
	if err != nil {
		return nil, fmt.Errorf("elfx: %s: DWARF: %w", o.name, err)
	}
	// DWARF 5 sections; AddSection also accepts .debug_types for DWARF 4.
	for _, name := range []string{"addr", "line_str", "str_offsets", "rnglists", "loclists", "types"} {
		b, err := get(name)
		if err != nil {
			return nil, err
		}
		if b == nil {
			continue
		}
		if name == "types" {
			if err := d.AddTypes(".debug_types", b); err != nil {
				return nil, fmt.Errorf("elfx: %s: DWARF: %w", o.name, err)
			}
			continue
		}
		if err := d.AddSection(".debug_"+name, b); err != nil {
			return nil, fmt.Errorf("elfx: %s: DWARF: %w", o.name, err)
		}
	}
	return d, nil
}

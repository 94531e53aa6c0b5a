package elfx

import "debug/elf"

// funcDescriptors is the .opd section of a 64-bit PowerPC ELFv1 object
// (big-endian ppc64): there a function symbol's value is the address of
// its function descriptor in .opd, whose first doubleword is the entry
// point (then the TOC pointer and the environment). Its st_size is the
// code's. Modern linkers emit no ".name" dot symbols for the code itself,
// so the symbol table only names code through the descriptors.
type funcDescriptors struct {
	index elf.SectionIndex
	addr  uint64
	data  []byte
}

// funcDescriptors returns the object's .opd, or nil when it has none
// with contents (not ELFv1 PowerPC, or a debug file where .opd is
// SHT_NOBITS).
func (o *Object) funcDescriptors() *funcDescriptors {
	f := o.ef
	if f.Machine != elf.EM_PPC64 || f.Class != elf.ELFCLASS64 {
		return nil
	}
	for i, s := range f.Sections {
		if s.Name != ".opd" || s.Type != elf.SHT_PROGBITS {
			continue
		}
		data, err := o.sectionData(s)
		if err != nil {
			return nil
		}
		return &funcDescriptors{index: elf.SectionIndex(i), addr: s.Addr, data: data}
	}
	return nil
}

// isOPD reports whether section index i of f is .opd (with or without
// contents).
func isOPD(f *elf.File, i uint16) bool {
	return f.Machine == elf.EM_PPC64 && int(i) < len(f.Sections) && f.Sections[i].Name == ".opd"
}

// resolve turns a symbol whose value is a descriptor into one for the
// code: its entry point and the section holding it. ok is false when the
// descriptor is not readable.
func (d *funcDescriptors) resolve(o *Object, e symEntry) (symEntry, bool) {
	off := e.Addr - d.addr
	if e.Addr < d.addr || off > uint64(len(d.data)) || uint64(len(d.data))-off < 8 {
		return e, false
	}
	e.Addr = o.ef.ByteOrder.Uint64(d.data[off:])
	e.section = uint16(o.sectionIndexOf(e.Addr))
	return e, e.section != uint16(elf.SHN_UNDEF)
}

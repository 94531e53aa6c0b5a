package elfx

import (
	"debug/elf"
)

// readCodeSymbols appends the code symbols of one symbol table section
// (SHT_SYMTAB or SHT_DYNSYM) to out. It reads the table in place from the
// mapped file instead of through debug/elf, which builds an elf.Symbol and
// a string for every entry: node's 185k symbols cost 400 MB of garbage
// that way. Names are substrings of one copy of the string table.
func (o *Object) readCodeSymbols(out []symEntry, typ elf.SectionType) []symEntry {
	f := o.ef
	var tab *elf.Section
	for _, s := range f.Sections {
		if s.Type == typ {
			tab = s
			break
		}
	}
	if tab == nil || tab.Link == 0 || int(tab.Link) >= len(f.Sections) {
		return out
	}
	data, err := o.sectionData(tab)
	if err != nil {
		return out
	}
	strData, err := o.sectionData(f.Sections[tab.Link])
	if err != nil {
		return out
	}
	strs := string(strData) // one copy; names are substrings of it
	entSize := 24
	if f.Class == elf.ELFCLASS32 {
		entSize = 16
	}
	n := len(data) / entSize
	order := f.ByteOrder
	for i := 1; i < n; i++ { // entry 0 is the null symbol
		b := data[i*entSize : (i+1)*entSize]
		var s rawSym
		if entSize == 24 {
			s = rawSym{name: order.Uint32(b), info: b[4], shndx: elf.SectionIndex(order.Uint16(b[6:])),
				value: order.Uint64(b[8:]), size: order.Uint64(b[16:])}
		} else {
			s = rawSym{name: order.Uint32(b), value: uint64(order.Uint32(b[4:])), size: uint64(order.Uint32(b[8:])),
				info: b[12], shndx: elf.SectionIndex(order.Uint16(b[14:]))}
		}
		if e, ok := codeSymbol(f, s, strs); ok {
			out = append(out, e)
		}
	}
	return out
}

// rawSym is one Elf32_Sym or Elf64_Sym.
type rawSym struct {
	name  uint32
	info  byte
	shndx elf.SectionIndex
	value uint64
	size  uint64
}

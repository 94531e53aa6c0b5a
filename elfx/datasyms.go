package elfx

import (
	"debug/elf"
	"strings"
)

// DataSymbol is one defined data or thread-local symbol of .symtab.
type DataSymbol struct {
	Name  string // as stored (a C++ or Rust name mangled), in place in the file's mapping
	Value uint64 // link-time address; a TLS symbol's offset in its segment
	TLS   bool
}

// DataSymbols calls visit with .symtab's defined STT_OBJECT and STT_TLS
// symbols in table order, read in place: debug/elf's Symbols builds a
// Symbol and a string for each entry of the table (a Rust executable's
// statics, looked up by path in every report, cost the whole table that
// way). It reads what Symbols would: the first SHT_SYMTAB, none at all
// when its size is not a whole number of entries, and a name that runs
// past its string table is empty. Names share the file's memory: visit
// copies what it keeps.
func (o *Object) DataSymbols(visit func(DataSymbol)) {
	t, ok := o.symbolTable(elf.SHT_SYMTAB)
	if !ok || len(t.data)%t.entSize != 0 {
		return
	}
	for i := 1; i < t.len(); i++ { // entry 0 is the null symbol
		s := t.sym(i)
		typ := elf.ST_TYPE(s.info)
		if typ != elf.STT_OBJECT && typ != elf.STT_TLS || s.shndx == elf.SHN_UNDEF {
			continue
		}
		visit(DataSymbol{Name: storedName(t.strs, s.name), Value: s.value, TLS: typ == elf.STT_TLS})
	}
}

// storedName is the NUL-terminated name at off in a string table, as
// debug/elf reads it: empty when off is outside the table or the name
// has no terminator.
func storedName(strs string, off uint32) string {
	if uint64(off) >= uint64(len(strs)) {
		return ""
	}
	name := strs[off:]
	end := strings.IndexByte(name, 0)
	if end < 0 {
		return ""
	}
	return name[:end]
}

package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"unsafe"
)

// symTable is one symbol table section read in place from the mapped
// file, instead of through debug/elf, which builds an elf.Symbol and a
// string for every entry (node's 185k symbols cost 400 MB of garbage that
// way). Entries are decoded on demand; names are substrings of strs.
type symTable struct {
	f       *elf.File
	ord     fixedOrder
	data    []byte
	strs    string
	entSize int
	sample  *byteSample // of strs, kept by the object (symnamesearch.go)
}

// byteSampleKey keys, in Object.Keyed, the byteSample of the string table
// at a section index.
type byteSampleKey elf.SectionIndex

// symbolTable returns o's first symbol table of type typ (SHT_SYMTAB or
// SHT_DYNSYM); ok is false when there is none readable.
func (o *Object) symbolTable(typ elf.SectionType) (t symTable, ok bool) {
	f := o.ef
	var tab *elf.Section
	for _, s := range f.Sections {
		if s.Type == typ {
			tab = s
			break
		}
	}
	if tab == nil || tab.Link == 0 || int(tab.Link) >= len(f.Sections) {
		return t, false
	}
	data, err := o.sectionData(tab)
	if err != nil {
		return t, false
	}
	strData, err := o.sectionData(f.Sections[tab.Link])
	if err != nil {
		return t, false
	}
	t = symTable{f: f, ord: fixedOrder{big: f.ByteOrder == binary.BigEndian}, data: data, strs: bytesString(strData, o.mapped != nil), entSize: 24,
		sample: o.Keyed(byteSampleKey(tab.Link), func() any { return new(byteSample) }).(*byteSample)}
	if f.Class == elf.ELFCLASS32 {
		t.entSize = 16
	}
	return t, true
}

// len is the number of entries, the null symbol 0 included.
func (t symTable) len() int { return len(t.data) / t.entSize }

// sym decodes entry i.
func (t symTable) sym(i int) rawSym {
	b := t.data[i*t.entSize : (i+1)*t.entSize]
	order := t.ord
	if t.entSize == 24 {
		return rawSym{name: order.u32(b), info: b[4], shndx: elf.SectionIndex(order.u16(b[6:])),
			value: order.u64(b[8:]), size: order.u64(b[16:])}
	}
	return rawSym{name: order.u32(b), value: uint64(order.u32(b[4:])), size: uint64(order.u32(b[8:])),
		info: b[12], shndx: elf.SectionIndex(order.u16(b[14:]))}
}

// value is entry i's st_value alone.
func (t symTable) value(i int) uint64 {
	if t.entSize == 24 {
		return t.ord.u64(t.data[i*24+8:])
	}
	return uint64(t.ord.u32(t.data[i*t.entSize+4:]))
}

// codePlace is where a code symbol's code is: its address and section,
// through the .opd descriptor for an ELFv1 function (opd.go); ok is false
// where the descriptors are not readable (a debug file).
func (o *Object) codePlace(opd *funcDescriptors, e symEntry) (symEntry, bool) {
	if !isOPD(o.ef, e.section) {
		return e, true
	}
	if opd == nil {
		return e, false
	}
	return opd.resolve(o, e)
}

// readCodeSymbols appends the code symbols of one symbol table section
// (SHT_SYMTAB or SHT_DYNSYM) to out.
func (o *Object) readCodeSymbols(out []symEntry, typ elf.SectionType) []symEntry {
	t, ok := o.symbolTable(typ)
	if !ok {
		return out
	}
	opd := o.funcDescriptors()
	for i := 1; i < t.len(); i++ { // entry 0 is the null symbol
		e, ok := codeSymbol(t.f, t.sym(i), t.strs)
		if ok {
			e, ok = o.codePlace(opd, e)
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// bytesString is a string table as a string whose substrings are the
// names: in place when the bytes are a mapped file's (the symbol table
// copies names on the way out), else one copy.
func bytesString(b []byte, mapped bool) string {
	if mapped && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}

// rawSym is one Elf32_Sym or Elf64_Sym.
type rawSym struct {
	name  uint32
	info  byte
	shndx elf.SectionIndex
	value uint64
	size  uint64
}

// SymbolValues looks names up among all defined symbols of any type
// (data too: libunwind's _U_dyn_info_list, the GDB JIT descriptor) in
// .dynsym and .symtab, and in the debug file's .symtab. It scans the raw
// tables without building them: a few names in a large library cost a
// pass over its entries and nothing else. Link-time values; a name
// defined nowhere is absent from the result.
func (o *Object) SymbolValues(names ...string) map[string]uint64 {
	key := strings.Join(names, "\x00")
	if v, ok := o.state().symbolValues.Load(key); ok {
		return v.(map[string]uint64)
	}
	out := map[string]uint64{}
	objs := []*Object{o}
	if dbg := o.debugObject(); dbg != nil {
		objs = append(objs, dbg)
	}
	for _, obj := range objs {
		for _, typ := range []elf.SectionType{elf.SHT_DYNSYM, elf.SHT_SYMTAB} {
			obj.scanSymbols(typ, names, out)
		}
	}
	v, _ := o.state().symbolValues.LoadOrStore(key, out)
	return v.(map[string]uint64)
}

func (o *Object) scanSymbols(typ elf.SectionType, names []string, out map[string]uint64) {
	if typ == elf.SHT_DYNSYM && o.hashedSymbols(names, out) {
		return
	}
	f := o.ef
	for _, tab := range f.Sections {
		if tab.Type != typ || tab.Link == 0 || int(tab.Link) >= len(f.Sections) {
			continue
		}
		strs, err := o.sectionData(f.Sections[tab.Link])
		if err != nil {
			return
		}
		// A name the string table does not hold, as a string or as the
		// tail of one (linkers merge suffixes), names no entry: when no
		// name asked for is there, the entries are not read at all.
		// Searching node's 7 MB .strtab is a fraction of a pass over its
		// 240,000 entries, whose pages it never touches.
		if !anyStringIn(strs, names, out) {
			o.release(strs)
			return
		}
		data, err := o.sectionData(tab)
		if err != nil {
			return
		}
		entSize := 24
		if f.Class == elf.ELFCLASS32 {
			entSize = 16
		}
		if len(data)/entSize > math.MaxInt32 {
			return
		}
		// Most entries are rejected on their first two bytes (a C++
		// library's names all start "_Z"): a table lookup, not a
		// string comparison per name.
		var first [256]bool
		var second [256]bool
		for _, n := range names {
			if len(n) >= 2 {
				first[n[0]], second[n[1]] = true, true
			}
		}
		// The byte order is tested once, not called through the
		// interface three times an entry (node: 185k entries).
		ord := fixedOrder{big: f.ByteOrder == binary.BigEndian}
		u32, u64 := ord.u32, ord.u64
		// The entries' fields are read first; the names of the defined
		// ones are then read one stretch of the string table at a time,
		// each stretch given back once read: any run of node's entries
		// has names all over its 7 MB .strtab, which a pass in table
		// order would have resident at once. A counting sort by stretch
		// keeps table order within one.
		const stretch = 64 << 10
		bucketOf := func(i int) int {
			return stretchOf(ord, data[i:i+entSize], len(strs), stretch)
		}
		starts := make([]int32, len(strs)/stretch+2)
		for i := entSize; i+entSize <= len(data); i += entSize {
			if k := bucketOf(i); k >= 0 {
				starts[k+1]++
			}
		}
		for k := 1; k < len(starts); k++ {
			starts[k] += starts[k-1]
		}
		byStretch := make([]int32, starts[len(starts)-1]) // entry numbers
		next := slices.Clone(starts)
		for i := entSize; i+entSize <= len(data); i += entSize {
			if k := bucketOf(i); k >= 0 {
				byStretch[next[k]] = int32(i / entSize)
				next[k]++
			}
		}
		// The first entry of a name in table order wins, as in a pass
		// in table order.
		found := make([]int, len(names))
		values := make([]uint64, len(names))
		for k := 0; k+1 < len(starts); k++ {
			for _, n := range byStretch[starts[k]:starts[k+1]] {
				i := int(n) * entSize
				off := uint(u32(data[i : i+4]))
				if !first[strs[off]] || !second[strs[off+1]] {
					continue
				}
				for j, name := range names {
					end := int(off) + len(name)
					if end < len(strs) && strs[end] == 0 && string(strs[off:end]) == name && (found[j] == 0 || i < found[j]) {
						found[j] = i
						if entSize == 24 {
							values[j] = u64(data[i+8:])
						} else {
							values[j] = uint64(u32(data[i+4:]))
						}
					}
				}
			}
			o.release(strs[k*stretch : min(len(strs), (k+1)*stretch)])
		}
		for j, name := range names {
			if _, dup := out[name]; found[j] != 0 && !dup {
				out[name] = values[j]
			}
		}
		o.release(data)
		return
	}
}

// anyStringIn reports whether a string table may hold one of the names
// not yet in found, NUL-terminated (possibly the tail of a longer
// string): false means none is there.
func anyStringIn(strs []byte, names []string, found map[string]uint64) bool {
	var needles [][]byte
	for _, n := range names {
		if _, dup := found[n]; dup {
			continue
		}
		// Searched without its leading underscores, which start most
		// names of a C++ program's table and would make every one a
		// candidate: what is searched must be there if the name is.
		tail := strings.TrimLeft(n, "_")
		if tail == "" {
			tail = n
		}
		needles = append(needles, append([]byte(tail), 0))
	}
	// A name that starts another (_U_dyn_info_list, _U_dyn_info_list_addr)
	// is searched once for both, without its NUL: each search is a pass
	// over the table (node's .strtab is 7 MB), and a false hit only costs
	// the scan of the entries that follows.
	slices.SortFunc(needles, func(a, b []byte) int { return len(a) - len(b) })
	var searched [][]byte
	for _, n := range needles {
		i := slices.IndexFunc(searched, func(s []byte) bool { return bytes.HasPrefix(n, bytes.TrimSuffix(s, []byte{0})) })
		if i < 0 {
			searched = append(searched, n)
			continue
		}
		searched[i] = bytes.TrimSuffix(searched[i], []byte{0})
	}
	for _, n := range searched {
		if bytes.Contains(strs, n) {
			return true
		}
	}
	return false
}

// fixedOrder reads fields in a byte order known in advance: methods on a
// struct are inlined where calls through binary.ByteOrder are not.
type fixedOrder struct{ big bool }

func (o fixedOrder) u16(b []byte) uint16 {
	if o.big {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (o fixedOrder) u32(b []byte) uint32 {
	if o.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func (o fixedOrder) u64(b []byte) uint64 {
	if o.big {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// stretchOf is the stretch of the string table (strsLen bytes, stretch
// bytes a stretch) where the name of the symbol entry e starts, -1 for an
// undefined or zero-valued symbol or a name out of bounds.
func stretchOf(ord fixedOrder, e []byte, strsLen, stretch int) int {
	off := uint(ord.u32(e)) // st_name comes first in both classes
	if off+1 >= uint(strsLen) {
		return -1
	}
	if len(e) == 24 {
		if ord.u16(e[6:]) == uint16(elf.SHN_UNDEF) || ord.u64(e[8:]) == 0 {
			return -1
		}
	} else if ord.u16(e[14:]) == uint16(elf.SHN_UNDEF) || ord.u32(e[4:]) == 0 {
		return -1
	}
	return int(off / uint(stretch))
}

// hashedSymbols is scanSymbols over .dynsym through its GNU hash table:
// a few pages per name instead of the whole table and its names. ok is
// false when there is no hash table to use.
func (o *Object) hashedSymbols(names []string, out map[string]uint64) (ok bool) {
	h, ok := o.gnuHash()
	if !ok {
		return false
	}
	t, ok := o.symbolTable(elf.SHT_DYNSYM)
	if !ok {
		return false
	}
	for _, name := range names {
		if _, dup := out[name]; dup {
			continue
		}
		for i := range h.candidates(name, t.len()) {
			if s := t.sym(i); s.shndx != elf.SHN_UNDEF && s.value != 0 && t.nameIs(s.name, name) {
				out[name] = s.value
				break
			}
		}
	}
	return true
}

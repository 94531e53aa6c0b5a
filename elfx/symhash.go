package elfx

import (
	"debug/elf"
	"encoding/binary"
	"strings"
)

// DefinedSymbol returns the link-time value of the first defined symbol
// called name (exactly, as stored) of type typ in o's symbol table of
// type tab (SHT_DYNSYM or SHT_SYMTAB). A .dynsym with a GNU hash table is
// searched through it, as the dynamic linker does: a name it lacks costs a
// bloom filter word, and one it has a bucket and a short chain, instead of
// a pass over every entry (node exports 75,000 symbols with 5 MB of
// names). Other tables are scanned in place, without building them.
func (o *Object) DefinedSymbol(tab elf.SectionType, name string, typ elf.SymType) (uint64, bool) {
	t, ok := o.symbolTable(tab)
	if !ok {
		return 0, false
	}
	match := func(i int) (uint64, bool) {
		s := t.sym(i)
		if s.shndx == elf.SHN_UNDEF || elf.ST_TYPE(s.info) != typ || !t.nameIs(s.name, name) {
			return 0, false
		}
		return s.value, true
	}
	if tab == elf.SHT_DYNSYM {
		if h, ok := o.gnuHash(); ok {
			for i := range h.candidates(name, t.len()) {
				if v, ok := match(i); ok {
					return v, true
				}
			}
			return 0, false
		}
	}
	// Only the entries named where the string table holds name whole can
	// match (symnamecheck.go's search): libc++abi's
	// __cxa_terminate_handler, looked up in every module's .symtab for
	// every C++ crash, is in none of them but libc++abi's.
	var offs []uint32
	if name != "" && !strings.ContainsRune(name, 0) {
		if offs, _ = spelledIn(t.strs, t.sample, name); len(offs) == 0 {
			return 0, false
		}
	}
	for i := range t.entriesNamedAt(offs) {
		if v, ok := match(i); ok {
			return v, true
		}
	}
	return 0, false
}

// nameIs reports whether the string at off in t's string table is name.
func (t symTable) nameIs(off uint32, name string) bool {
	end := uint64(off) + uint64(len(name))
	return end < uint64(len(t.strs)) && t.strs[end] == 0 && t.strs[off:end] == name
}

// gnuHashTable is a SHT_GNU_HASH section read in place: a bloom filter
// over the hashed names, buckets of first symbol indexes, and one chain
// word per hashed symbol (its hash, bit 0 set on the last of a bucket).
type gnuHashTable struct {
	order     binary.ByteOrder
	nbuckets  uint32
	symoffset uint32
	shift     uint32
	wordBits  uint32 // bits of a bloom word: 64 (ELFCLASS64) or 32
	bloom     []byte
	buckets   []byte
	chain     []byte
}

// gnuHash returns o's GNU hash table of its .dynsym; ok is false when
// there is none or its header does not fit in the section.
func (o *Object) gnuHash() (h gnuHashTable, ok bool) {
	for _, s := range o.ef.Sections {
		if s.Type != elf.SHT_GNU_HASH {
			continue
		}
		if int(s.Link) >= len(o.ef.Sections) || o.ef.Sections[s.Link].Type != elf.SHT_DYNSYM {
			return h, false
		}
		data, err := o.sectionData(s)
		if err != nil {
			return h, false
		}
		word := 8
		if o.ef.Class == elf.ELFCLASS32 {
			word = 4
		}
		return parseGNUHash(data, o.ef.ByteOrder, word)
	}
	return h, false
}

// parseGNUHash reads the header of a GNU hash section whose bloom words
// are word bytes long.
func parseGNUHash(data []byte, order binary.ByteOrder, word int) (h gnuHashTable, ok bool) {
	if len(data) < 16 {
		return h, false
	}
	h = gnuHashTable{order: order, nbuckets: order.Uint32(data), symoffset: order.Uint32(data[4:]),
		shift: order.Uint32(data[12:]), wordBits: uint32(word * 8)}
	nbloom := uint64(order.Uint32(data[8:]))
	rest := data[16:]
	// Sizes are checked against what the section holds before slicing.
	if h.nbuckets == 0 || nbloom == 0 || nbloom*uint64(word) > uint64(len(rest)) {
		return h, false
	}
	h.bloom, rest = rest[:nbloom*uint64(word)], rest[nbloom*uint64(word):]
	if uint64(h.nbuckets)*4 > uint64(len(rest)) {
		return h, false
	}
	h.buckets, h.chain = rest[:h.nbuckets*4], rest[h.nbuckets*4:]
	return h, true
}

// gnuHashOf is the GNU hash function (djb2: h*33 + c).
func gnuHashOf(name string) uint32 {
	h := uint32(5381)
	for i := 0; i < len(name); i++ {
		h = h*33 + uint32(name[i])
	}
	return h
}

// candidates yields, in table order, the indexes below nsyms of the
// symbols whose hash is name's: the ones that may be called name.
func (h gnuHashTable) candidates(name string, nsyms int) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		hash := gnuHashOf(name)
		nbloom := uint32(len(h.bloom)) / (h.wordBits / 8)
		w := hash / h.wordBits % nbloom
		var bits uint64
		if h.wordBits == 64 {
			bits = h.order.Uint64(h.bloom[w*8:])
		} else {
			bits = uint64(h.order.Uint32(h.bloom[w*4:]))
		}
		mask := uint64(1)<<(hash%h.wordBits) | uint64(1)<<((hash>>h.shift)%h.wordBits)
		if bits&mask != mask {
			return
		}
		b := hash % h.nbuckets
		idx := h.order.Uint32(h.buckets[b*4:])
		if idx < h.symoffset {
			return // 0: an empty bucket
		}
		// A chain ends at its word with bit 0 set, at the end of the
		// chain words or at the end of the symbol table, whichever
		// comes first.
		for ; int64(idx) < int64(nsyms); idx++ {
			c := uint64(idx-h.symoffset) * 4
			if c+4 > uint64(len(h.chain)) {
				return
			}
			ch := h.order.Uint32(h.chain[c:])
			if ch|1 == hash|1 && !yield(int(idx)) {
				return
			}
			if ch&1 != 0 {
				return
			}
		}
	}
}

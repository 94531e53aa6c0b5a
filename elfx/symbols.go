package elfx

import (
	"cmp"
	"debug/elf"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Symbol is a code symbol from the object's symbol tables.
type Symbol struct {
	Name string // demangled
	Raw  string // as in the symbol table
	Addr uint64 // link-time address
	Size uint64 // 0 when the symbol table gives no size
}

// symEntry is a code symbol as the table keeps it: small, because a
// large program has hundreds of thousands (the demangled Symbol is made
// on lookup).
type symEntry struct {
	Raw        string // as in the symbol table, without @VERSION
	Addr, Size uint64
	order      int32  // position in the symbol tables, the last tie-breaker
	section    uint16 // section index (SHN_* values excluded)
	rank       int8   // lower is preferred among symbols at one address
}

// symbolTable holds code symbols sorted by address. byAddr indexes all,
// one entry per distinct address (the preferred alias); all keeps every
// alias for name lookups. Names of a mapped file are read in place: the
// strings escape only through demangled and nearestSymbolName, which copy
// them, as the mapping goes with the object.
type symbolTable struct {
	byAddr []int32
	all    []symEntry

	// Name lookups: raw names first, demangled ones only when a name is
	// not a raw one (demangling every C++ symbol of libstdc++ was half
	// of a report that resolves one tail-call target, by its linkage
	// name). A raw name seldom reads as another symbol's demangled one
	// (those have "::" or "(" in them; a Rust legacy name without a path
	// could): then the raw one wins.
	rawOnce       sync.Once
	byRaw         map[string]int // raw name -> index in all
	demangledOnce sync.Once
	byDemangled   map[string]int // demangled name -> index in all
}

// maxAliasScan bounds the backward walk that looks for a sized symbol
// containing an address when the nearest preceding one does not.
const maxAliasScan = 16

// Symbol returns the code symbol covering addr (link-time). It prefers a
// sized symbol that contains addr; otherwise it takes the nearest
// preceding unsized symbol in the same section, which is how gdb prints
// foo+123 for hand-written assembly without sizes.
func (o *Object) Symbol(addr uint64) (Symbol, bool) {
	m := o.state().memo.Load()
	if m != nil {
		if r, ok := memoLoad(m, m.l.syms, addr); ok {
			return r.sym, r.ok
		}
	}
	var s Symbol
	var ok bool
	if b, found := o.batchSymbol(addr); found {
		s, ok = b.sym.sym, b.sym.ok
	} else if b, found := o.scanSymbol(addr); found {
		s, ok = b.sym.sym, b.sym.ok
	} else {
		s, ok = o.lookupSymbol(addr)
	}
	if !ok {
		// A stripped Go executable still has its function table.
		s, ok = o.goSymbol(addr)
	}
	if m != nil {
		memoStore(m, m.l.syms, addr, symResult{s, ok})
	}
	return s, ok
}

func (o *Object) lookupSymbol(addr uint64) (Symbol, bool) {
	t := o.symbols()
	i := t.below(addr)
	if i < 0 {
		return Symbol{}, false
	}
	for j := i; j >= 0 && j > i-maxAliasScan; j-- {
		s := t.at(j)
		if s.Size > 0 && addr-s.Addr < s.Size {
			return s.demangled(), true
		}
	}
	s := t.at(i)
	if s.Size == 0 && elf.SectionIndex(s.section) == o.sectionIndexOf(addr) {
		return s.demangled(), true
	}
	return Symbol{}, false
}

// nearestSymbolName names the code at addr by the nearest symbol at or
// below it, sized or not: what addr2line prints for code the DWARF does
// not name, such as the alignment padding after a function.
func (o *Object) nearestSymbolName(addr uint64) string {
	if s, ok := o.Symbol(addr); ok {
		return s.Name
	}
	if b, ok := o.batchSymbol(addr); ok {
		return b.nearest
	}
	t := o.symbols()
	i := t.below(addr)
	if i < 0 || elf.SectionIndex(t.at(i).section) != o.sectionIndexOf(addr) {
		return ""
	}
	return strings.Clone(Demangle(t.at(i).Raw))
}

// below is the index in byAddr of the last address at or below addr, -1
// for none.
func (t *symbolTable) below(addr uint64) int {
	return sort.Search(len(t.byAddr), func(i int) bool { return t.all[t.byAddr[i]].Addr > addr }) - 1
}

// at is the preferred symbol at byAddr[i].
func (t *symbolTable) at(i int) *symEntry { return &t.all[t.byAddr[i]] }

// LookupSymbol finds a code symbol by its raw (mangled) or demangled name.
// Among aliases of one name the preferred one (global, sized) wins.
// Answers are kept (keepLookups): a report's tail-call search looks the
// same targets up in every module again and again, and each answer
// demangles its name (the generated C++ program processed by dwz: 41%
// of a cold report).
func (o *Object) LookupSymbol(name string) (Symbol, bool) {
	m := o.keepLookups()
	if r, ok := memoLoad(m, m.l.named, name); ok {
		return r.sym, r.ok
	}
	s, ok := o.lookupSymbolByName(name)
	memoStore(m, m.l.named, name, symResult{s, ok})
	return s, ok
}

// LookupRawSymbol is LookupSymbol for a name as the symbol table spells
// it, a C or Go name: demangled names are not looked at, so a name the
// table lacks does not demangle every symbol of it (a Go program's
// thousands, for the runtime's assembly functions looked up by their
// Go names, which the table has with an .abi0 suffix).
func (o *Object) LookupRawSymbol(name string) (Symbol, bool) {
	t := o.symbols()
	if i, ok := t.rawIndex(name); ok {
		return t.all[i].demangled(), true
	}
	return o.goSymbolByName(name)
}

// rawIndex is the index in all of the preferred symbol whose raw name is
// name.
func (t *symbolTable) rawIndex(name string) (int, bool) {
	// all is sorted with preferred aliases first at each address, so the
	// first entry recorded for a name is the preferred one.
	t.rawOnce.Do(func() {
		t.byRaw = make(map[string]int, len(t.all))
		for i := range t.all {
			if _, ok := t.byRaw[t.all[i].Raw]; !ok {
				t.byRaw[t.all[i].Raw] = i
			}
		}
	})
	i, ok := t.byRaw[name]
	return i, ok
}

func (o *Object) lookupSymbolByName(name string) (Symbol, bool) {
	plain, built := plainIdentifier(name), o.state().symsBuilt.Load()
	// Whether a mangled name can spell a plain identifier, from the string
	// tables before the table is built (symnamecheck.go); the built table
	// answers for less.
	mayDemangle := true
	var spots *nameSpots
	if plain && !built {
		sp := o.spellings(name)
		if !sp.whole() && !sp.mangled {
			return o.goSymbolByName(name)
		}
		spots, mayDemangle = &sp, sp.mangled
	}
	if !built && o.fewScans() {
		// Without building the table (symscan.go), reading the entries
		// named where spellings found name whole.
		var e symEntry
		var ok bool
		if spots != nil {
			e, ok = rawNameIn(name, spots.tabs, spots.wholeAt)
		} else {
			e, ok = o.symbolByRawName(name)
		}
		if ok {
			return e.demangled(), true
		}
		if !mayDemangle {
			return o.goSymbolByName(name)
		}
	}
	t := o.symbols()
	i, ok := t.rawIndex(name)
	if !ok && plain {
		if mayDemangle {
			i, ok = t.demangledAs(name)
		}
	} else if !ok {
		t.demangledOnce.Do(func() {
			t.byDemangled = map[string]int{}
			for i := range t.all {
				s := &t.all[i]
				if d := Demangle(s.Raw); d != s.Raw {
					if _, ok := t.byDemangled[d]; !ok {
						t.byDemangled[d] = i
					}
				}
			}
		})
		i, ok = t.byDemangled[name]
	}
	if !ok {
		return o.goSymbolByName(name)
	}
	return t.all[i].demangled(), true
}

// demangledAs is the index in all of the first symbol whose demangled
// name is the plain identifier name, found without demangling the whole
// table: a mangled name spells its identifiers as they are (Itanium's
// and Rust's source names; v0's punycode only for non-ASCII ones), so
// only the names holding name can demangle to it. A tail call's target
// named in libc's DWARF (`raise`) is looked up in every module, node's
// executable first: demangling its every C++ name to learn that none is
// `raise` was most of the CPU of a report of a node core.
func (t *symbolTable) demangledAs(name string) (int, bool) {
	mangled := mangledSpellings(name)
	for i := range t.all {
		s := &t.all[i]
		if (strings.Contains(s.Raw, mangled[0]) || strings.Contains(s.Raw, mangled[1])) &&
			s.Raw != name && Demangle(s.Raw) == name {
			return i, true
		}
	}
	return 0, false
}

// demangled returns the symbol with its demangled name. Names are
// demangled on lookup rather than when the table is built: a C++ library
// has hundreds of thousands of symbols and a backtrace needs a few dozen.
func (s *symEntry) demangled() Symbol {
	raw := strings.Clone(s.Raw)
	return Symbol{Name: Demangle(raw), Raw: raw, Addr: s.Addr, Size: s.Size}
}

// sectionIndexOf returns the index of the allocated section containing
// addr, or SHN_UNDEF.
func (o *Object) sectionIndexOf(addr uint64) elf.SectionIndex {
	for i, s := range o.ef.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && addr >= s.Addr && addr-s.Addr < s.Size {
			return elf.SectionIndex(i)
		}
	}
	return elf.SHN_UNDEF
}

func (o *Object) symbols() *symbolTable {
	d := o.state()
	d.symOnce.Do(func() {
		d.syms = o.buildSymbols()
		d.symsBuilt.Store(true)
	})
	return d.syms
}

// buildSymbols merges .symtab of the binary and of its debug file with
// .dynsym, keeps code symbols only and sorts them once.
func (o *Object) buildSymbols() *symbolTable {
	raw := o.readCodeSymbols(nil, elf.SHT_SYMTAB)
	if dbg := o.debugObject(); dbg != nil {
		raw = dbg.readCodeSymbols(raw, elf.SHT_SYMTAB)
	}
	raw = o.miniSymbols(raw)
	raw = o.readCodeSymbols(raw, elf.SHT_DYNSYM)

	// Among aliases of equal rank the one that comes first in the symbol
	// tables wins, as in eu-stack and gdb: a static glibc names
	// __libc_start_main_impl, not its alias __libc_start_main that
	// follows it in .symtab. raw is in table order, so the index breaks
	// ties (a pdqsort with an explicit tie-breaker is several times
	// faster than a stable sort on the 185k symbols of node). The sort
	// moves 16-byte keys, not 48-byte entries: the address, then rank,
	// sized before unsized and table order packed into one word.
	keys := make([]symKey, len(raw))
	for i := range raw {
		raw[i].order = int32(i)
		tie := uint64(uint8(raw[i].rank))<<40 | uint64(i)
		if raw[i].Size == 0 {
			tie |= 1 << 32
		}
		keys[i] = symKey{raw[i].Addr, tie}
	}
	slices.SortFunc(keys, func(a, b symKey) int {
		if c := cmp.Compare(a.addr, b.addr); c != 0 {
			return c
		}
		return cmp.Compare(a.tie, b.tie)
	})
	permute(raw, keys)
	// Drop exact duplicates (the same symbol from .symtab and .dynsym).
	all := raw[:0]
	for i := range raw {
		if n := len(all); n > 0 && all[n-1].Addr == raw[i].Addr && all[n-1].Raw == raw[i].Raw {
			continue
		}
		all = append(all, raw[i])
	}
	var byAddr []int32
	for i := range all {
		if n := len(byAddr); n > 0 && all[byAddr[n-1]].Addr == all[i].Addr {
			continue
		}
		byAddr = append(byAddr, int32(i))
	}
	return &symbolTable{byAddr: byAddr, all: all}
}

// permute puts raw in the order of the sorted keys (the low 32 bits of a
// key's tie are the entry's index), in place: a second copy of node's
// 185k entries would be 9 MB.
func permute(raw []symEntry, keys []symKey) {
	done := make([]bool, len(raw))
	for i := range raw {
		if done[i] {
			continue
		}
		// Follow the cycle through i: position j takes the entry at
		// keys[j]'s index.
		tmp := raw[i]
		j := i
		for {
			done[j] = true
			k := int(uint32(keys[j].tie))
			if k == i {
				raw[j] = tmp
				break
			}
			raw[j] = raw[k]
			j = k
		}
	}
}

// symKey is a symbol's sort key: its address, then rank (bits 40..47),
// unsized after sized (bit 32) and position in the tables (bits 0..31).
type symKey struct {
	addr, tie uint64
}

// sttParisCMilli is STT_PARISC_MILLI, the symbol type of PA-RISC
// millicode routines in libgcc.
const sttParisCMilli elf.SymType = 13

// codeSymbol decides whether s names code and ranks it among aliases:
// functions before untyped labels, global before weak before local.
func codeSymbol(f *elf.File, s rawSym, strs string) (symEntry, bool) {
	rank, ok := codeSymbolRank(f, s, strs)
	if !ok {
		return symEntry{}, false
	}
	addr, size := codeRange(f, s)
	return symEntry{Raw: symbolName(strs, s.name), Addr: addr, Size: size, section: uint16(s.shndx), rank: rank}, true
}

// codeRange is where a code symbol's code is. A Thumb function's value
// has bit 0 set (the address a branch-and-exchange to it uses); its code
// starts at the even address, where a pc at its first instruction
// points, and ends where value+size says. An unsized one stays unsized
// (crt1's _start): it covers the code up to the next symbol, as gdb
// names it, not the single byte value+0 would end at.
func codeRange(f *elf.File, s rawSym) (addr, size uint64) {
	if f.Machine == elf.EM_ARM && elf.ST_TYPE(s.info) != elf.STT_NOTYPE && s.value&1 != 0 {
		if s.size == 0 {
			return s.value - 1, 0
		}
		return s.value - 1, s.size + 1
	}
	return s.value, s.size
}

// symbolName is the name at off in the string table, without @VERSION.
func symbolName(strs string, off uint32) string {
	name := strs[off:]
	if end := strings.IndexByte(name, 0); end >= 0 {
		name = name[:end]
	}
	if i := strings.IndexByte(name, '@'); i > 0 {
		name = name[:i]
	}
	return name
}

// codeSymbolRank is codeSymbol's decision without making the name, which
// it judges by its first bytes.
func codeSymbolRank(f *elf.File, s rawSym, strs string) (int8, bool) {
	rank, ok := codeSymbolRankByType(f, s, len(strs))
	if !ok || !codeSymbolName(strs, s.name) {
		return 0, false
	}
	return rank, true
}

// codeSymbolRankByType is codeSymbolRank without looking at the name
// (strLen is the string table's size).
func codeSymbolRankByType(f *elf.File, s rawSym, strLen int) (int8, bool) {
	typ := elf.ST_TYPE(s.info)
	if typ == sttParisCMilli && f.Machine == elf.EM_PARISC {
		typ = elf.STT_FUNC // millicode ($$divU, $$mulI): code with its own calling convention
	}
	switch typ {
	case elf.STT_FUNC, elf.STT_GNU_IFUNC:
	case elf.STT_NOTYPE:
		// Hand-written assembly and stripped code: accept labels in
		// executable sections only.
		if int(s.shndx) >= len(f.Sections) || f.Sections[s.shndx].Flags&elf.SHF_EXECINSTR == 0 {
			return 0, false
		}
	default:
		return 0, false
	}
	if s.shndx == elf.SHN_UNDEF || s.shndx >= elf.SHN_LORESERVE || s.name == 0 || int(s.name) >= strLen {
		return 0, false
	}
	var rank int8
	if typ == elf.STT_NOTYPE {
		rank += 8
	}
	switch elf.ST_BIND(s.info) {
	case elf.STB_GLOBAL:
	case elf.STB_WEAK:
		rank += 2
	default:
		rank += 4
	}
	return rank, true
}

// codeSymbolName judges a code symbol's name (at off in the string table)
// by its first bytes: not empty, not a mapping symbol (isMappingSymbol),
// not a local label (.L).
func codeSymbolName(strs string, off uint32) bool {
	var head [4]byte
	copy(head[:], strs[off:min(len(strs), int(off)+4)])
	if head[0] == 0 || head[0] == '.' && head[1] == 'L' {
		return false
	}
	return !mappingSymbolHead(head)
}

// isMappingSymbol reports ARM/AArch64/RISC-V mapping symbols ($a, $d,
// $t, $x and their $x.foo forms, and RISC-V's $x<ISA string> such as
// "$xrv64i2p1_m2p0_..." that binutils 2.40 emits where the ISA changes),
// which mark code/data boundaries, not functions.
func isMappingSymbol(name string) bool {
	var head [4]byte
	copy(head[:], name)
	return mappingSymbolHead(head)
}

// mappingSymbolHead is isMappingSymbol on a name's first four bytes
// (zeros past its end).
func mappingSymbolHead(h [4]byte) bool {
	if h[0] != '$' {
		return false
	}
	switch h[1] {
	case 'a', 'd', 't', 'x':
		return h[2] == 0 || h[2] == '.' || h[1] == 'x' && h[2] == 'r' && h[3] == 'v'
	}
	return false
}

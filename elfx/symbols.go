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

// symbolTable holds code symbols sorted by address. byAddr has one entry
// per distinct address (the preferred alias); all keeps every alias for
// name lookups.
type symbolTable struct {
	byAddr []symEntry
	all    []symEntry

	nameOnce sync.Once
	byName   map[string]int // raw and demangled name -> index in all
}

// maxAliasScan bounds the backward walk that looks for a sized symbol
// containing an address when the nearest preceding one does not.
const maxAliasScan = 16

// Symbol returns the code symbol covering addr (link-time). It prefers a
// sized symbol that contains addr; otherwise it takes the nearest
// preceding unsized symbol in the same section, which is how gdb prints
// foo+123 for hand-written assembly without sizes.
func (o *Object) Symbol(addr uint64) (Symbol, bool) {
	t := o.symbols()
	syms := t.byAddr
	i := sort.Search(len(syms), func(i int) bool { return syms[i].Addr > addr }) - 1
	if i < 0 {
		return Symbol{}, false
	}
	for j := i; j >= 0 && j > i-maxAliasScan; j-- {
		s := &syms[j]
		if s.Size > 0 && addr-s.Addr < s.Size {
			return s.demangled(), true
		}
	}
	s := &syms[i]
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
	syms := o.symbols().byAddr
	i := sort.Search(len(syms), func(i int) bool { return syms[i].Addr > addr }) - 1
	if i < 0 || elf.SectionIndex(syms[i].section) != o.sectionIndexOf(addr) {
		return ""
	}
	return Demangle(syms[i].Raw)
}

// LookupSymbol finds a code symbol by its raw (mangled) or demangled name.
// Among aliases of one name the preferred one (global, sized) wins.
func (o *Object) LookupSymbol(name string) (Symbol, bool) {
	t := o.symbols()
	t.nameOnce.Do(func() {
		t.byName = make(map[string]int, 2*len(t.all))
		// all is sorted with preferred aliases first at each address, so
		// the first entry recorded for a name is the preferred one.
		for i := range t.all {
			s := &t.all[i]
			if _, ok := t.byName[s.Raw]; !ok {
				t.byName[s.Raw] = i
			}
			if name := Demangle(s.Raw); name != s.Raw {
				if _, ok := t.byName[name]; !ok {
					t.byName[name] = i
				}
			}
		}
	})
	i, ok := t.byName[name]
	if !ok {
		return Symbol{}, false
	}
	return t.all[i].demangled(), true
}

// demangled returns the symbol with its demangled name. Names are
// demangled on lookup rather than when the table is built: a C++ library
// has hundreds of thousands of symbols and a backtrace needs a few dozen.
func (s *symEntry) demangled() Symbol {
	return Symbol{Name: Demangle(s.Raw), Raw: s.Raw, Addr: s.Addr, Size: s.Size}
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
	d.symOnce.Do(func() { d.syms = o.buildSymbols() })
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
	// faster than a stable sort on the 185k symbols of node).
	for i := range raw {
		raw[i].order = int32(i)
	}
	slices.SortFunc(raw, func(a, b symEntry) int {
		switch {
		case a.Addr != b.Addr:
			return cmp.Compare(a.Addr, b.Addr)
		case a.rank != b.rank:
			return int(a.rank) - int(b.rank)
		case (a.Size != 0) != (b.Size != 0):
			if a.Size != 0 {
				return -1
			}
			return 1
		}
		return int(a.order - b.order)
	})
	// Drop exact duplicates (the same symbol from .symtab and .dynsym).
	all := raw[:0]
	for i := range raw {
		if n := len(all); n > 0 && all[n-1].Addr == raw[i].Addr && all[n-1].Raw == raw[i].Raw {
			continue
		}
		all = append(all, raw[i])
	}
	var byAddr []symEntry
	for i := range all {
		if n := len(byAddr); n > 0 && byAddr[n-1].Addr == all[i].Addr {
			continue
		}
		byAddr = append(byAddr, all[i])
	}
	return &symbolTable{byAddr: byAddr, all: all}
}

// sttParisCMilli is STT_PARISC_MILLI, the symbol type of PA-RISC
// millicode routines in libgcc.
const sttParisCMilli elf.SymType = 13

// codeSymbol decides whether s names code and ranks it among aliases:
// functions before untyped labels, global before weak before local.
func codeSymbol(f *elf.File, s rawSym, strs string) (symEntry, bool) {
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
			return symEntry{}, false
		}
	default:
		return symEntry{}, false
	}
	if s.shndx == elf.SHN_UNDEF || s.shndx >= elf.SHN_LORESERVE || s.name == 0 || int(s.name) >= len(strs) {
		return symEntry{}, false
	}
	name := strs[s.name:]
	if end := strings.IndexByte(name, 0); end >= 0 {
		name = name[:end]
	}
	if name == "" || isMappingSymbol(name) || strings.HasPrefix(name, ".L") {
		return symEntry{}, false
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
	if i := strings.IndexByte(name, '@'); i > 0 {
		name = name[:i]
	}
	addr, size := s.value, s.size
	if f.Machine == elf.EM_ARM && typ != elf.STT_NOTYPE && addr&1 != 0 {
		// A Thumb function's value has bit 0 set (the address a
		// branch-and-exchange to it uses); its code starts at the even
		// address, where a pc at its first instruction points, and
		// ends where value+size says.
		addr, size = addr-1, size+1
	}
	return symEntry{Raw: name, Addr: addr, Size: size, section: uint16(s.shndx), rank: rank}, true
}

// isMappingSymbol reports ARM/AArch64/RISC-V mapping symbols ($a, $d,
// $t, $x and their $x.foo forms), which mark code/data boundaries, not
// functions.
func isMappingSymbol(name string) bool {
	if len(name) < 2 || name[0] != '$' {
		return false
	}
	switch name[1] {
	case 'a', 'd', 't', 'x':
		return len(name) == 2 || name[2] == '.'
	}
	return false
}

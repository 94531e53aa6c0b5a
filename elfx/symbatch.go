package elfx

import (
	"debug/elf"
	"math"
	"slices"
	"unsafe"
)

// A report looks a few dozen addresses up in a symbol table that may hold
// hundreds of thousands of symbols (node: 185k). Building the sorted table
// reads, names and sorts them all; preloadSymbols instead answers the
// addresses a report already knows in one pass over the raw tables, keeping
// per address only the symbols Symbol would look at: the preferred alias
// at each of the maxAliasScan nearest addresses at or below it. Names are
// made only for the symbols that win. Any other address still builds the
// table.

// symbolBatch holds the answers preloadSymbols computed; it is not
// changed once stored.
type symbolBatch struct {
	answers map[uint64]batchAnswer
}

// batchAnswer is what Symbol and nearestSymbolName give for one address.
type batchAnswer struct {
	sym     symResult
	nearest string
}

// batchCandidate is the preferred alias at one address (so far).
type batchCandidate struct {
	addr, size uint64
	key        uint64 // rank, unsized, table order: lower is preferred
	section    uint16
	nameOff    uint32
	strs       string
}

// candidateKey orders aliases at one address as buildSymbols does.
func candidateKey(rank int8, size uint64, order int) uint64 {
	k := uint64(uint8(rank))<<40 | uint64(uint32(order))
	if size == 0 {
		k |= 1 << 32
	}
	return k
}

// batchTable is one symbol table to read, in buildSymbols' order.
type batchTable struct {
	obj *Object
	typ elf.SectionType
}

// preloadSymbols answers Symbol and nearestSymbolName for addrs with one
// pass over the symbol tables, unless the table is built already.
func (o *Object) preloadSymbols(addrs []uint64) {
	d := o.state()
	if d.symsBuilt.Load() || len(addrs) == 0 {
		return
	}
	if b := d.batch.Load(); b != nil {
		// A second batch (the next core of a triage): the table, built
		// once, serves every batch to come.
		for _, a := range addrs {
			if _, ok := b.answers[a]; !ok {
				o.symbols()
				return
			}
		}
		return
	}
	addrs = slices.Clone(addrs)
	slices.Sort(addrs)
	addrs = slices.Compact(addrs)
	tables := o.batchTables()
	// Each symbol is offered to every address above it: past a few
	// million offers the sorted table is cheaper.
	if n := symbolCount(append(tables, batchTable{o, elf.SHT_DYNSYM})); n*len(addrs) > maxBatchOffers {
		o.symbols()
		return
	}
	// The pass first takes every name as a function's: names are then
	// read only for the winners, not for each symbol that is the nearest
	// so far at the time the pass meets it (node: thousands of names
	// spread over all 7 MB of .strtab). Rejected names are rare (empty
	// ones, .L labels, mapping symbols); where a winner has one, the
	// pass is made again judging every name as it comes.
	cands, _ := o.batchCandidates(addrs, tables, false)
	if !allNamesOK(cands) {
		cands, _ = o.batchCandidates(addrs, tables, true)
	}

	b := &symbolBatch{answers: make(map[uint64]batchAnswer, len(addrs))}
	for i, a := range addrs {
		b.answers[a] = o.batchAnswer(a, cands[i])
	}
	d.batch.Store(b)
	// The answers own their names: the pages the pass read (node: 4 MB
	// of entries, and of names what the kernel maps around them) leave
	// the resident set.
	for _, t := range append(tables, batchTable{o, elf.SHT_DYNSYM}) {
		if st, ok := t.obj.symbolTable(t.typ); ok {
			t.obj.release(st.data)
			t.obj.release(unsafe.Slice(unsafe.StringData(st.strs), len(st.strs)))
		}
	}
}

// batchTables are the .symtab sections a pass reads, in buildSymbols'
// order (the .gnu_debugdata symbols and .dynsym follow them).
func (o *Object) batchTables() []batchTable {
	tables := []batchTable{{o, elf.SHT_SYMTAB}}
	if dbg := o.debugObject(); dbg != nil {
		tables = append(tables, batchTable{dbg, elf.SHT_SYMTAB})
	}
	return tables
}

// batchCandidates returns, for each of addrs, up to maxAliasScan
// candidates sorted by address, highest first: the preferred alias at
// each of the nearest addresses at or below it. checkNames false takes
// every name as a function's (see allNamesOK). offers counts the
// candidates offered.
//
// Each symbol is offered once, to the lowest lookup address at or above
// it: that address's own candidates are the nearest of the symbols
// between it and the address below. An address's candidates are then
// its own, followed by those of the address below (all lower), cut to
// maxAliasScan. A pass that offered each symbol to every address above
// it made a table in address order (a linker's, mostly) offer each one
// to all of them (gen-lto: 8,300 symbols, 330 addresses, 12% of its
// report); bounding them first by a second pass and a sort of every
// symbol's address was a fifth of a node core's report.
func (o *Object) batchCandidates(addrs []uint64, tables []batchTable, checkNames bool) (cands [][]batchCandidate, offers int) {
	cands = make([][]batchCandidate, len(addrs))
	highest := uint64(math.MaxUint64)
	if len(addrs) > 0 {
		highest = addrs[len(addrs)-1]
	}
	o.eachCandidate(tables, highest, func(c batchCandidate) {
		if i := sort64(addrs, c.addr); i < len(addrs) {
			offer(&cands[i], c, checkNames)
			offers++
		}
	})
	for i := 1; i < len(addrs); i++ {
		if n := maxAliasScan - len(cands[i]); n > 0 {
			below := cands[i-1]
			cands[i] = append(cands[i], below[:min(n, len(below))]...)
		}
	}
	return cands, offers
}

// eachCandidate calls visit with every code symbol of the tables, then
// of the .gnu_debugdata symbols and of .dynsym, numbered in that order.
func (o *Object) eachCandidate(tables []batchTable, highest uint64, visit func(batchCandidate)) {
	order := 0
	for _, t := range tables {
		order = t.obj.eachCodeSymbol(t.typ, order, highest, visit)
	}
	for _, e := range o.miniSymbols(nil) {
		visit(batchCandidate{addr: e.Addr, size: e.Size, key: candidateKey(e.rank, e.Size, order), section: e.section, strs: e.Raw + "\x00"})
		order++
	}
	o.eachCodeSymbol(elf.SHT_DYNSYM, order, highest, visit)
}

// allNamesOK reports whether every candidate kept has a function's name.
// Then the candidates chosen without judging names are the ones judging
// them would choose: every address kept has a symbol with a good name,
// the best one there, and no address between them was passed over.
func allNamesOK(cands [][]batchCandidate) bool {
	for _, cs := range cands {
		for i := range cs {
			if !cs[i].nameOK() {
				return false
			}
		}
	}
	return true
}

// maxBatchOffers bounds preloadSymbols' work (symbols times addresses).
const maxBatchOffers = 16 << 20

// symbolCount is how many entries the tables have.
func symbolCount(tables []batchTable) int {
	n := 0
	for _, t := range tables {
		for _, s := range t.obj.ef.Sections {
			if s.Type == t.typ && s.Entsize > 0 {
				n += int(s.Size / s.Entsize)
				break
			}
		}
	}
	return n
}

// sort64 is the index of the first address >= v.
func sort64(addrs []uint64, v uint64) int {
	i, _ := slices.BinarySearch(addrs, v)
	return i
}

// offer puts c among the candidates of one address: the preferred alias
// at each of the maxAliasScan highest addresses.
func offer(cs *[]batchCandidate, c batchCandidate, checkNames bool) {
	l := *cs
	if len(l) == maxAliasScan && c.addr < l[len(l)-1].addr {
		return // below all the nearest addresses: most symbols
	}
	for i := range l {
		switch {
		case l[i].addr == c.addr:
			if c.key < l[i].key && c.passes(checkNames) {
				l[i] = c
			}
			return
		case l[i].addr < c.addr:
			if !c.passes(checkNames) {
				return
			}
			if len(l) < maxAliasScan {
				l = append(l, batchCandidate{})
			}
			copy(l[i+1:], l[i:len(l)-1])
			l[i] = c
			*cs = l
			return
		}
	}
	if len(l) < maxAliasScan && c.passes(checkNames) {
		*cs = append(l, c)
	}
}

// nameOK is codeSymbolName for the candidate.
func (c *batchCandidate) nameOK() bool { return codeSymbolName(c.strs, c.nameOff) }

// passes is nameOK when names are judged, else true.
func (c *batchCandidate) passes(checkNames bool) bool { return !checkNames || c.nameOK() }

// batchAnswer applies Symbol's and nearestSymbolName's rules to the
// candidates of addr (highest address first).
func (o *Object) batchAnswer(addr uint64, cs []batchCandidate) batchAnswer {
	var ans batchAnswer
	if len(cs) == 0 {
		return ans
	}
	for i := range cs {
		if c := &cs[i]; c.size > 0 && addr-c.addr < c.size {
			ans.sym = symResult{c.symbol(), true}
			break
		}
	}
	top := &cs[0]
	if !ans.sym.ok && top.size == 0 && elf.SectionIndex(top.section) == o.sectionIndexOf(addr) {
		ans.sym = symResult{top.symbol(), true}
	}
	switch {
	case ans.sym.ok:
		ans.nearest = ans.sym.sym.Name
	case elf.SectionIndex(top.section) == o.sectionIndexOf(addr):
		ans.nearest = top.symbol().Name
	}
	return ans
}

func (c *batchCandidate) symbol() Symbol {
	e := symEntry{Raw: symbolName(c.strs, c.nameOff), Addr: c.addr, Size: c.size}
	return e.demangled()
}

// eachCodeSymbol calls visit with every code symbol of o's table of type
// typ, numbered from order on; it returns the next number.
func (o *Object) eachCodeSymbol(typ elf.SectionType, order int, highest uint64, visit func(batchCandidate)) int {
	t, ok := o.symbolTable(typ)
	if !ok {
		return order
	}
	opd := o.funcDescriptors()
	// A symbol above the highest address looked up is nobody's nearest:
	// judged by its value alone (a Thumb symbol's is its address + 1),
	// without decoding the entry, except where a value may be a function
	// descriptor whose code lies elsewhere (.opd).
	skipAbove := o.ef.Machine != elf.EM_PPC64 && highest < math.MaxUint64
	for i := 1; i < t.len(); i++ {
		if skipAbove && t.value(i) > highest+1 {
			order++
			continue
		}
		s := t.sym(i)
		// The name is judged only when the symbol would be kept
		// (offer): most names are never read, nor their pages touched.
		// Numbering every entry keeps the table order among the kept.
		if rank, ok := codeSymbolRankByType(t.f, s, len(t.strs)); ok {
			addr, size := codeRange(t.f, s)
			if e, ok := o.codePlace(opd, symEntry{Addr: addr, section: uint16(s.shndx)}); ok {
				visit(batchCandidate{addr: e.Addr, size: size, key: candidateKey(rank, size, order),
					section: e.section, nameOff: s.name, strs: t.strs})
			}
		}
		order++
	}
	return order
}

// batchSymbol returns the preloaded answer for addr, if there is one.
func (o *Object) batchSymbol(addr uint64) (batchAnswer, bool) {
	b := o.state().batch.Load()
	if b == nil {
		return batchAnswer{}, false
	}
	a, ok := b.answers[addr]
	return a, ok
}

// SymbolTableBuilt reports whether the object's sorted symbol table has
// been built: a report whose lookups its batch answered leaves it
// unbuilt (a Go core's, whose goroutines' frames and creators join the
// threads' batch).
func (o *Object) SymbolTableBuilt() bool {
	return o.state().symsBuilt.Load()
}

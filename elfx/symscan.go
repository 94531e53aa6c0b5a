package elfx

import (
	"cmp"
	"debug/elf"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
)

// A report's addresses are answered by preloadSymbols' one pass over the
// raw symbol tables; what comes after it built the whole sorted table
// (python3.11's 40,000 entries, libc's, libstdc++'s) for a handful of
// lookups: the tail-call targets, by name in every module in load order
// until one has it, and by address. The first few such lookups of an
// object scan the raw tables instead, as preloadSymbols does. Found by
// its raw name, a symbol is the one the sorted table would give first;
// a name no string table holds is missed before (symnamecheck.go); any
// other name found by no scan goes to the table (it may be a demangled
// one).

// maxScans is how many lookups an object answers by scanning its raw
// tables; after them the sorted table is built (a Go program's frames
// look up a name each, and the table answers them for less than a scan
// each).
const maxScans = 6

// scansKey is the Keyed key of an object's count of scans.
type scansKey struct{}

// fewScans counts a lookup and reports whether it is one of the first
// maxScans of the object.
func (o *Object) fewScans() bool {
	n := o.Keyed(scansKey{}, func() any { return new(atomic.Int32) }).(*atomic.Int32)
	return n.Add(1) <= maxScans
}

// scanSymbol answers Symbol for an address the batch does not hold with
// one pass over the raw tables (preloadSymbols' for one address), and
// adds the answer to the batch. ok is false where the table is built or
// to be built.
func (o *Object) scanSymbol(addr uint64) (batchAnswer, bool) {
	d := o.state()
	if d.symsBuilt.Load() || !o.fewScans() {
		return batchAnswer{}, false
	}
	tables := o.batchTables()
	if symbolCount(append(tables, batchTable{o, elf.SHT_DYNSYM})) > maxBatchOffers {
		return batchAnswer{}, false
	}
	addrs := []uint64{addr}
	cands, _ := o.batchCandidates(addrs, tables, false)
	if !allNamesOK(cands) {
		cands, _ = o.batchCandidates(addrs, tables, true)
	}
	ans := o.batchAnswer(addr, cands[0])
	for {
		old := d.batch.Load()
		b := &symbolBatch{answers: map[uint64]batchAnswer{addr: ans}}
		if old != nil {
			for a, v := range old.answers {
				b.answers[a] = v
			}
		}
		if d.batch.CompareAndSwap(old, b) {
			return ans, true
		}
	}
}

// symbolByRawName returns the code symbol called name (its stored name
// without @VERSION) that buildSymbols' table holds first for that name:
// the lowest address, then the best rank, sized before unsized, then
// table order.
func (o *Object) symbolByRawName(name string) (symEntry, bool) {
	tabs := o.namingTables()
	if name == "" || strings.ContainsAny(name, "@\x00") {
		return rawNameIn(name, tabs, nil)
	}
	wholeAt := make([][]uint32, len(tabs))
	for n, tab := range tabs {
		wholeAt[n], _ = spelledIn(tab.t.strs, tab.t.sample, name)
	}
	return rawNameIn(name, tabs, wholeAt)
}

// rawNameIn is symbolByRawName over tabs. Where wholeAt is given (by
// table, the offsets where a search found name whole: spelledIn), only
// the entries named there are looked at: node's imports
// (pthread_cond_wait) compared by name with its every entry read 12.8
// MB of names in no order.
func rawNameIn(name string, tabs []namingTable, wholeAt [][]uint32) (best symEntry, found bool) {
	var bestOrder [2]int
	for n, tab := range tabs {
		t := tab.t
		var offs []uint32
		if wholeAt != nil {
			if offs = wholeAt[n]; len(offs) == 0 {
				continue
			}
		}
		for i := range t.entriesNamedAt(offs) {
			s := t.sym(i)
			if int(s.name) >= len(t.strs) || !strings.HasPrefix(t.strs[s.name:], name) || symbolName(t.strs, s.name) != name {
				continue
			}
			e, ok := tab.codeEntry(s)
			if !ok {
				continue
			}
			if order := [2]int{n, i}; !found || symbolBefore(e, order, best, bestOrder) {
				best, bestOrder, found = e, order, true
			}
		}
	}
	return best, found
}

// entriesNamedAt yields the entries (from 1 on) whose st_name is one of
// offs, every entry where offs is nil. Only st_name is read: a pass
// over node's 185k entries for an import's one or two.
func (t symTable) entriesNamedAt(offs []uint32) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i, p := 1, t.entSize; p+t.entSize <= len(t.data); i, p = i+1, p+t.entSize {
			if offs != nil {
				off := t.ord.u32(t.data[p : p+4])
				if off != offs[0] && (len(offs) == 1 || !slices.Contains(offs[1:], off)) {
					continue
				}
			}
			if !yield(i) {
				return
			}
		}
	}
}

// symbolBefore reports whether a (at order in the tables) sorts before b
// in buildSymbols' table.
func symbolBefore(a symEntry, aOrder [2]int, b symEntry, bOrder [2]int) bool {
	if c := cmp.Compare(a.Addr, b.Addr); c != 0 {
		return c < 0
	}
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c < 0
	}
	if aUnsized, bUnsized := a.Size == 0, b.Size == 0; aUnsized != bUnsized {
		return bUnsized
	}
	if c := cmp.Compare(aOrder[0], bOrder[0]); c != 0 {
		return c < 0
	}
	return aOrder[1] < bOrder[1]
}

// namingTable is one symbol table buildSymbols reads and its object.
type namingTable struct {
	obj *Object
	t   symTable
}

// namingTables are the symbol tables buildSymbols reads, in its order.
func (o *Object) namingTables() []namingTable {
	var tabs []namingTable
	add := func(obj *Object, typ elf.SectionType) {
		if t, ok := obj.symbolTable(typ); ok {
			tabs = append(tabs, namingTable{obj, t})
		}
	}
	add(o, elf.SHT_SYMTAB)
	if dbg := o.debugObject(); dbg != nil {
		add(dbg, elf.SHT_SYMTAB)
	}
	if m := o.miniDebugObject(); m != nil {
		add(m, elf.SHT_SYMTAB)
	}
	add(o, elf.SHT_DYNSYM)
	return tabs
}

// codeEntry is the code symbol that entry s of the table is, where the
// sorted table would place it (codePlace), as both raw scans take it.
func (tab namingTable) codeEntry(s rawSym) (symEntry, bool) {
	e, ok := codeSymbol(tab.t.f, s, tab.t.strs)
	if ok {
		e, ok = tab.obj.codePlace(tab.obj.funcDescriptors(), e)
	}
	return e, ok
}

package elfx

// LookupRawSymbols is LookupRawSymbol for several names at once: while
// the sorted symbol table is not built, one pass over the raw tables
// answers them all, each as the table would (symbolByRawName's choice,
// then the Go function table). A Go program's walk asks for the
// runtime's dozen special functions (analyze's goFrames), twice each:
// building the whole table for them was a fifth of the CPU and 0.9 MB of
// the heap of a warm report of a Go core. Names found nowhere are absent
// from the result.
func (o *Object) LookupRawSymbols(names []string) map[string]Symbol {
	out := make(map[string]Symbol, len(names))
	if o.state().symsBuilt.Load() {
		for _, name := range names {
			if s, ok := o.LookupRawSymbol(name); ok {
				out[name] = s
			}
		}
		return out
	}
	// Most entries are passed over on their name's first byte; an empty
	// name's is its terminating NUL.
	var first [256]bool
	wanted := make(map[string]bool, len(names))
	for _, name := range names {
		if name == "" {
			first[0] = true
		} else {
			first[name[0]] = true
		}
		wanted[name] = true
	}
	type choice struct {
		e     symEntry
		order [2]int
	}
	best := make(map[string]choice, len(names))
	for n, tab := range o.namingTables() {
		t := tab.t
		for i := 1; i < t.len(); i++ { // entry 0 is the null symbol
			s := t.sym(i)
			if int(s.name) >= len(t.strs) || !first[t.strs[s.name]] {
				continue
			}
			name := symbolName(t.strs, s.name)
			if !wanted[name] {
				continue
			}
			e, ok := tab.codeEntry(s)
			if !ok {
				continue
			}
			order := [2]int{n, i}
			if b, seen := best[name]; !seen || symbolBefore(e, order, b.e, b.order) {
				best[name] = choice{e, order}
			}
		}
	}
	for name := range wanted {
		if b, ok := best[name]; ok {
			out[name] = b.e.demangled()
		} else if s, ok := o.goSymbolByName(name); ok {
			out[name] = s
		}
	}
	return out
}

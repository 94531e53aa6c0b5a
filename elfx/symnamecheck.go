package elfx

import (
	"strconv"
	"strings"
)

// A tail call's target named in libc's DWARF is looked up by name in
// every module in load order, the executable first. For a plain
// identifier (a C name) the string tables the symbol table is read from
// tell, before the table is built, whether a module can hold it: as its
// raw name, or as the demangled name of a mangled one, which spells its
// identifiers as they are. Building a Rust executable's table, and
// demangling every name of it, to find the name is not there, was a
// twentieth of a Rust core's cold report; node's executable imports
// pthread_cond_wait, so its tables hold the name whole, but no mangled
// name of it spells it: demangling node's every C++ name to learn that
// was most of a node core's report.

// spellings reports how the string tables the symbol table is read from
// spell the plain identifier name: whole, as a name (followed by its NUL
// or a symbol version's @; a linker may store it as the tail of a longer
// name), or mangled, inside a mangled name after its length (Itanium's
// and Rust's source names, v0's with an underscore between them when
// the identifier starts with one). One search for name itself a table:
// the length's digits are everywhere in mangled names, the name is not.
// Where it is whole is kept for symbolByRawName, which then reads no
// other entry's name.
func (o *Object) spellings(name string) nameSpots {
	sp := nameSpots{tabs: o.namingTables()}
	sp.wholeAt = make([][]uint32, len(sp.tabs))
	for n, tab := range sp.tabs {
		var mangled bool
		sp.wholeAt[n], mangled = spelledIn(tab.t.strs, tab.t.sample, name)
		sp.mangled = sp.mangled || mangled
	}
	return sp
}

// nameSpots is what spellings found of a name in the naming tables.
type nameSpots struct {
	tabs    []namingTable
	wholeAt [][]uint32 // by table, the offsets where the name is whole
	mangled bool
}

// whole reports whether some table holds the name whole.
func (sp nameSpots) whole() bool {
	for _, offs := range sp.wholeAt {
		if len(offs) > 0 {
			return true
		}
	}
	return false
}

// spelledIn is spellings for one string table: the offsets where name is
// whole, the ones where symbolName reads it, and whether it is spelled
// mangled. sample is strs' (nil: taken here).
func spelledIn(strs string, sample *byteSample, name string) (wholeAt []uint32, mangled bool) {
	n := strconv.Itoa(len(name))
	occurrences(strs, sample, name, func(at int) bool {
		if end := at + len(name); end == len(strs) || strs[end] == 0 || strs[end] == '@' {
			wholeAt = append(wholeAt, uint32(at))
		}
		if !mangled && strings.HasSuffix(strings.TrimSuffix(strs[:at], "_"), n) { // n or n_ before it
			mangled = true
		}
		return true
	})
	return wholeAt, mangled
}

// mangledSpellings are the strings a mangled name holds where it spells
// the plain identifier name (spellings).
func mangledSpellings(name string) []string {
	n := strconv.Itoa(len(name))
	return []string{n + name, n + "_" + name}
}

// plainIdentifier reports whether name is letters, digits and
// underscores only.
func plainIdentifier(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '_' && (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return name != ""
}

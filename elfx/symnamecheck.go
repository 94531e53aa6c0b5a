package elfx

import "strings"

// mayHoldSymbol reports whether name can be the name, raw or demangled,
// of one of o's code symbols, before o's symbol table is built: false
// only for a plain identifier (a C name, an Itanium or v0 mangled name)
// that none of the string tables the table is read from holds, as a
// mangled name spells its identifiers as they are. A tail call's target
// named in libc's DWARF is looked up in every module in load order, the
// executable first: building a Rust executable's table, and demangling
// every name of it, to find the name is not there, was a twentieth of
// a Rust core's cold report.
func (o *Object) mayHoldSymbol(name string) bool {
	if o.state().symsBuilt.Load() || !plainIdentifier(name) {
		return true
	}
	for _, tab := range o.namingTables() {
		if strings.Contains(tab.t.strs, name) {
			return true
		}
	}
	return false
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

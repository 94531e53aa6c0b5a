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
func (o *Object) spellings(name string) (whole, mangled bool) {
	n := strconv.Itoa(len(name))
	for _, tab := range o.namingTables() {
		strs := tab.t.strs
		for from := 0; ; {
			i := strings.Index(strs[from:], name)
			if i < 0 {
				break
			}
			at, end := from+i, from+i+len(name)
			if end == len(strs) || strs[end] == 0 || strs[end] == '@' {
				whole = true
			}
			before := strs[:at]
			if strings.HasSuffix(strings.TrimSuffix(before, "_"), n) { // n or n_ before it
				mangled = true
			}
			if whole && mangled {
				return
			}
			from = at + 1
		}
	}
	return
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

package elfx

import (
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// A plain identifier looked up by name (a tail call's target named in
// libc's DWARF) is found among the demangled names without demangling
// every symbol of the table (node's: most of a report's CPU), with the
// answer the whole table's demangled names give.
func TestPlainNameLookupDemanglesNotAll(t *testing.T) {
	paths, _ := filepath.Glob("/usr/lib/*-linux-gnu/libstdc++.so.6")
	if len(paths) == 0 {
		testenv.Unavailable(t, "no libstdc++.so.6")
	}
	o := mustOpen(t, paths[0])
	// Names inside many mangled names that are no symbol's raw name, and
	// one that is.
	for _, name := range []string{"what", "raise", "terminate", "length_error", "no_such_name_anywhere", "__cxa_throw"} {
		got, ok := o.LookupSymbol(name)
		tab := o.symbols()
		if tab.byDemangled != nil {
			t.Fatalf("looking %q up demangled the whole table", name)
		}
		want, wantOK := wholeTableLookup(tab, name)
		if ok != wantOK || got != want {
			t.Errorf("LookupSymbol(%q) = %+v, %v; the whole table's demangled names give %+v, %v", name, got, ok, want, wantOK)
		}
	}
}

// wholeTableLookup is the lookup by raw, then demangled, name over every
// symbol of tab, as LookupSymbol did before demangledAs.
func wholeTableLookup(tab *symbolTable, name string) (Symbol, bool) {
	for i := range tab.all {
		if tab.all[i].Raw == name {
			return tab.all[i].demangled(), true
		}
	}
	for i := range tab.all {
		s := &tab.all[i]
		if d := Demangle(s.Raw); d != s.Raw && d == name {
			return s.demangled(), true
		}
	}
	return Symbol{}, false
}

// A name a library's string tables hold only whole (a function it
// imports: node's pthread_cond_wait), and no mangled name spells, is
// answered without building the library's symbol table.
func TestImportedNameLookupBuildsNoTable(t *testing.T) {
	paths, _ := filepath.Glob("/usr/lib/*-linux-gnu/libstdc++.so.6")
	if len(paths) == 0 {
		testenv.Unavailable(t, "no libstdc++.so.6")
	}
	o := mustOpen(t, paths[0])
	const name = "pthread_once" // libstdc++ imports it
	got, ok := o.LookupSymbol(name)
	if o.state().symsBuilt.Load() {
		t.Errorf("looking the import %q up built the symbol table", name)
	}
	want, wantOK := wholeTableLookup(o.symbols(), name)
	if ok != wantOK || got != want {
		t.Errorf("LookupSymbol(%q) = %+v, %v; the whole table gives %+v, %v", name, got, ok, want, wantOK)
	}
}

package elfx

import (
	"strings"
	"testing"
)

// TestLookupAbsentNameLeavesTableUnbuilt looks up, in a Rust program,
// names of libc's functions it does not define (a tail call's target
// named in libc's DWARF is looked up there first): the answer must come
// without building and demangling the program's symbol table, and names
// it does hold, raw and demangled, must still be found.
func TestLookupAbsentNameLeavesTableUnbuilt(t *testing.T) {
	bin := compile(t, t.TempDir(), "rustc", "prog", "rs", rustProgram, "-g", "-C", "opt-level=1")
	o := mustOpen(t, bin)
	for _, name := range []string{"__pthread_kill_implementation", "__GI_raise"} {
		if s, ok := o.LookupSymbol(name); ok {
			t.Errorf("LookupSymbol(%q) = %+v in a program without it", name, s)
		}
	}
	if o.state().symsBuilt.Load() {
		t.Error("looking up names the program does not hold built its symbol table")
	}
	// A name some string table holds (main's, a Rust function's
	// demangled path) takes the table.
	if s, ok := o.LookupSymbol("main"); !ok || s.Addr == 0 {
		t.Errorf("LookupSymbol(main) = %+v, %v", s, ok)
	}
	var rustFn Symbol
	for _, s := range o.symbols().all {
		if d := s.demangled(); strings.HasPrefix(d.Name, "prog::count") {
			rustFn = d
		}
	}
	if rustFn.Name == "" {
		t.Fatal("no prog::count symbol: the program no longer tests what it should")
	}
	if s, ok := o.LookupSymbol(rustFn.Name); !ok || s.Addr != rustFn.Addr {
		t.Errorf("LookupSymbol(%q) = %+v, %v; want the symbol at %#x", rustFn.Name, s, ok, rustFn.Addr)
	}
}

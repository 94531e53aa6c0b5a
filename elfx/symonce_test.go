package elfx

import (
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestLookupSymbolOncePerName: without a symbol cache, a name looked up
// again (a tail-call search asks each module for the same targets over
// and over) is answered from the first answer, not demangled again.
func TestLookupSymbolOncePerName(t *testing.T) {
	paths, _ := filepath.Glob("/usr/lib/*-linux-gnu/libstdc++.so.6")
	if len(paths) == 0 {
		testenv.Unavailable(t, "no libstdc++.so.6")
	}
	o := mustOpen(t, paths[0])
	if o.state().memo.Load() != nil {
		t.Fatal("a symbol cache is attached: the test proves nothing")
	}
	const name = "_ZSt20__throw_out_of_rangePKc"
	first, ok := o.LookupSymbol(name)
	if !ok || first.Name != "std::__throw_out_of_range(char const*)" {
		t.Fatalf("LookupSymbol(%q) = %+v, %v", name, first, ok)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if again, ok := o.LookupSymbol(name); !ok || again != first {
			t.Fatalf("again: %+v, %v; first %+v", again, ok, first)
		}
	})
	if allocs > 1 {
		t.Errorf("looking %q up again allocated %.0f times: demangled again", name, allocs)
	}
}

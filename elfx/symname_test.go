package elfx

import (
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestLookupSymbolByName: raw names are found without demangling every
// symbol (a tail-call target named by its linkage name in libstdc++
// demangled thousands), and raw and demangled names give what one map of
// both, first entry first, gives.
func TestLookupSymbolByName(t *testing.T) {
	paths, _ := filepath.Glob("/usr/lib/*-linux-gnu/libstdc++.so.6")
	if len(paths) == 0 {
		testenv.Unavailable(t, "no libstdc++.so.6")
	}
	o := mustOpen(t, paths[0])
	tab := o.symbols()
	want := map[string]int{}
	for i := range tab.all {
		s := &tab.all[i]
		if _, ok := want[s.Raw]; !ok {
			want[s.Raw] = i
		}
		if d := Demangle(s.Raw); d != s.Raw {
			if _, ok := want[d]; !ok {
				want[d] = i
			}
		}
	}
	var raw, demangled []string
	for i := 0; i < len(tab.all); i += 1 + len(tab.all)/300 {
		s := &tab.all[i]
		raw = append(raw, s.Raw)
		if d := Demangle(s.Raw); d != s.Raw {
			demangled = append(demangled, d)
		}
	}
	if len(demangled) < 50 {
		t.Fatalf("%d C++ names among %d: the test proves nothing", len(demangled), len(raw))
	}
	check := func(names []string) {
		for _, n := range names {
			got, ok := o.LookupSymbol(n)
			if w := tab.all[want[n]].demangled(); !ok || got != w {
				t.Errorf("LookupSymbol(%q) = %+v, %v; want %+v", n, got, ok, w)
			}
		}
	}
	check(raw)
	if tab.byDemangled != nil {
		t.Error("raw names were looked up by demangling every symbol")
	}
	check(demangled)
}

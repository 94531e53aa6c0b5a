package elfx

import (
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestFewLookupsBuildNoTable: after a report's batch, the few lookups
// that follow (tail-call targets by address and by name, in libc with its
// debug file and in libstdc++) give what the sorted table gives without
// building it; a name libc lacks is missed without it too.
func TestFewLookupsBuildNoTable(t *testing.T) {
	cxx, _ := filepath.Glob("/usr/lib/*-linux-gnu/libstdc++.so.6")
	if len(cxx) == 0 {
		testenv.Unavailable(t, "no libstdc++.so.6")
	}
	libc := libcWithDebug(t).Path()
	for _, path := range []string{libc, cxx[0]} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			open := func() *Object {
				o := mustOpen(t, path)
				o.AttachDebugFile(nil)
				return o
			}
			table, scan := open(), open()
			tab := table.symbols()
			if len(tab.byAddr) < 100 {
				t.Fatalf("%d symbols", len(tab.byAddr))
			}
			at := func(i int) *symEntry { return tab.at(i * (len(tab.byAddr) - 1) / 99) }
			scan.preloadSymbols([]uint64{at(0).Addr, at(1).Addr})
			var lookups int
			for _, i := range []int{40, 70} {
				a := at(i).Addr + at(i).Size/2
				ws, wok := table.Symbol(a)
				gs, gok := scan.Symbol(a)
				if ws != gs || wok != gok {
					t.Errorf("Symbol(%#x): scanned %+v %v, table %+v %v", a, gs, gok, ws, wok)
				}
				if w, g := table.nearestSymbolName(a), scan.nearestSymbolName(a); w != g {
					t.Errorf("nearestSymbolName(%#x): scanned %q, table %q", a, g, w)
				}
				lookups++
			}
			names := []string{at(55).Raw, at(85).Raw}
			if path == libc {
				names = append(names, "no_such_function_in_libc")
			}
			for _, name := range names {
				ws, wok := table.LookupSymbol(name)
				gs, gok := scan.LookupSymbol(name)
				if ws != gs || wok != gok {
					t.Errorf("LookupSymbol(%q): scanned %+v %v, table %+v %v", name, gs, gok, ws, wok)
				}
				lookups++
			}
			if lookups > maxScans {
				t.Fatalf("%d lookups: more than the %d scans", lookups, maxScans)
			}
			if scan.state().syms != nil {
				t.Error("the lookups after the batch built the table")
			}

			// The raw scan picks the entry the table holds first for
			// every name: aliases, versioned names, local duplicates.
			seen := map[string]bool{}
			for i := range tab.all {
				name := tab.all[i].Raw
				if seen[name] || i%7 != 0 && len(seen) > 300 {
					continue
				}
				seen[name] = true
				e, ok := scan.symbolByRawName(name)
				w, _ := table.LookupSymbol(name)
				if g := e.demangled(); !ok || g != w {
					t.Errorf("symbolByRawName(%q): %+v %v, table %+v", name, g, ok, w)
				}
			}
		})
	}
}

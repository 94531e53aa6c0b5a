package elfx

import (
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestPreloadedSymbolsMatchTable: the one-pass answers for a batch of
// addresses are what the sorted table gives, for Symbol and for
// nearestSymbolName, at symbol starts, insides, ends, the bytes before
// them and gaps, in libc with its debug file (two .symtab and a .dynsym)
// and in node (185k symbols, C++ aliases) when it is installed. The table
// itself is checked against gdb and nm in symbols_test.go.
func TestPreloadedSymbolsMatchTable(t *testing.T) {
	libcs, _ := filepath.Glob("/lib/*-linux-gnu/libc.so.6")
	if len(libcs) == 0 {
		testenv.Unavailable(t, "no libc.so.6")
	}
	files := []string{libcs[0]}
	if _, err := os.Stat("/usr/bin/node"); err == nil {
		files = append(files, "/usr/bin/node")
	}
	// An AArch64 program: $x and $d mapping symbols at many of the
	// nearest addresses, so the pass that takes every name as a
	// function's is refused and made again judging names.
	mapped := compile(t, t.TempDir(), "aarch64-linux-gnu-gcc", "mapsyms", "c", `
static const int table[] = {1, 2, 3};
int pick(int i) { return table[i % 3]; }
int twice(int i) { return pick(i) * 2; }
int main(int argc, char **argv) { return twice(argc); }
`, "-O1", "-g")
	files = append(files, mapped)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			open := func() *Object {
				o := mustOpen(t, path)
				o.AttachDebugFile(nil)
				return o
			}
			table, batch := open(), open()
			tab := table.symbols()
			var addrs []uint64
			// Enough addresses to exercise every case, few enough that
			// the batch is not refused as too big (maxBatchOffers).
			tables := []batchTable{{batch, elf.SHT_SYMTAB}, {batch, elf.SHT_DYNSYM}}
			if dbg := batch.debugObject(); dbg != nil {
				tables = append(tables, batchTable{dbg, elf.SHT_SYMTAB})
			}
			limit := min(7500, maxBatchOffers/symbolCount(tables)-3)
			step := max(1, 5*len(tab.byAddr)/limit+1)
			for i := 0; i < len(tab.byAddr); i += step {
				s := tab.at(i)
				addrs = append(addrs, s.Addr, s.Addr-1, s.Addr+s.Size/2, s.Addr+s.Size, s.Addr+s.Size+7)
			}
			addrs = append(addrs, 0, 1, ^uint64(0))
			if cands, _ := batch.batchCandidates(addrs, tables, false); allNamesOK(cands) == (path == mapped) {
				t.Errorf("the candidates chosen without judging names all have good names: %v", path != mapped)
			}
			batch.preloadSymbols(addrs)
			if batch.state().syms != nil {
				t.Fatal("preloadSymbols built the table")
			}
			for _, a := range addrs {
				ws, wok := table.Symbol(a)
				gs, gok := batch.Symbol(a)
				if ws != gs || wok != gok {
					t.Errorf("Symbol(%#x): preloaded %+v %v, table %+v %v", a, gs, gok, ws, wok)
				}
				if w, g := table.nearestSymbolName(a), batch.nearestSymbolName(a); w != g {
					t.Errorf("nearestSymbolName(%#x): preloaded %q, table %q", a, g, w)
				}
			}
			if batch.state().syms != nil {
				t.Error("answering preloaded addresses built the table")
			}
			t.Logf("%d addresses, %d symbols", len(addrs), len(tab.all))
		})
	}
}

// TestPreloadedSymbolsSecondBatch: the first batch of addresses is
// answered without the table; a second one with new addresses (the next
// core of a triage) builds the table once instead of passing over the raw
// tables again; both give what the table gives.
func TestPreloadedSymbolsSecondBatch(t *testing.T) {
	table := libcWithDebug(t)
	addrs := sampleAddrs(t, mustOpen(t, table.DebugFile()).ELF(), 40)
	first, second := addrs[:len(addrs)/2], addrs[len(addrs)/2:]
	o := libcWithDebug(t)
	o.WarmFor(first)
	if o.state().syms != nil {
		t.Fatal("the first batch built the table")
	}
	o.WarmFor(first)
	if o.state().syms != nil {
		t.Fatal("the same batch again built the table")
	}
	o.WarmFor(second)
	if o.state().syms == nil {
		t.Fatal("a second batch did not build the table")
	}
	for _, a := range addrs {
		ws, wok := table.Symbol(a)
		if gs, gok := o.Symbol(a); gs != ws || gok != wok {
			t.Errorf("Symbol(%#x) = %+v %v, table %+v %v", a, gs, gok, ws, wok)
		}
	}
}

// TestPreloadedSymbolsFewOffers: a symbol table in address order (a
// linker's, mostly) made each symbol the nearest so far of every lookup
// address above it, so that a pass offered it to all of them (gen-lto:
// 8,300 symbols, 330 addresses, 12% of its report). Each address must be
// offered about its maxAliasScan nearest symbols only, and the answers
// stay the sorted table's.
func TestPreloadedSymbolsFewOffers(t *testing.T) {
	exe := buildManyFunctions(t, 1000, "-O1")
	table, batch := mustOpen(t, exe), mustOpen(t, exe)
	tab := table.symbols()
	var addrs []uint64
	for i := 0; i < len(tab.byAddr); i += 8 {
		s := tab.at(i)
		addrs = append(addrs, s.Addr+s.Size/2)
	}
	slices.Sort(addrs)
	addrs = slices.Compact(addrs)
	tables := batch.batchTables()
	_, offers := batch.batchCandidates(addrs, tables, false)
	// Aliases may add a few offers each; a pass over every address
	// above each symbol makes tens of thousands.
	if limit := 2 * maxAliasScan * len(addrs); offers > limit {
		t.Errorf("%d addresses among %d symbols: %d offers, more than %d", len(addrs), len(tab.byAddr), offers, limit)
	}
	// Each symbol goes to one address at most.
	if n := symbolCount(append(tables, batchTable{batch, elf.SHT_DYNSYM})); offers > n {
		t.Errorf("%d offers of %d symbols", offers, n)
	}
	batch.preloadSymbols(addrs)
	for _, a := range addrs {
		ws, wok := table.Symbol(a)
		if gs, gok := batch.Symbol(a); ws != gs || wok != gok {
			t.Errorf("Symbol(%#x): preloaded %+v %v, table %+v %v", a, gs, gok, ws, wok)
		}
	}
	if batch.state().syms != nil {
		t.Error("preloadSymbols built the table")
	}
	t.Logf("%d addresses among %d symbols: %d offers", len(addrs), len(tab.byAddr), offers)
}

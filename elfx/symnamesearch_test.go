package elfx

import (
	"debug/elf"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// indexedSpelledIn is spelledIn as it searched before occurrences: from
// one strings.Index hit of name to the next. It is the reference the
// search by a rare byte must agree with.
func indexedSpelledIn(strs, name string) (wholeAt []uint32, mangled bool) {
	n := strconv.Itoa(len(name))
	for from := 0; name != ""; {
		i := strings.Index(strs[from:], name)
		if i < 0 {
			break
		}
		at, end := from+i, from+i+len(name)
		if end == len(strs) || strs[end] == 0 || strs[end] == '@' {
			wholeAt = append(wholeAt, uint32(at))
		}
		if strings.HasSuffix(strings.TrimSuffix(strs[:at], "_"), n) {
			mangled = true
		}
		from = at + 1
	}
	return wholeAt, mangled
}

// nodeCaseNames are the names a report of bench/cores.sh's node core
// looks up in node (tail-call targets named in libc's DWARF) and a few
// more C names.
var nodeCaseNames = []string{
	"__pthread_kill", "__GI_raise", "__GI___futex_abstimed_wait_cancelable64", "epoll_pwait",
	"pthread_cond_wait", "uv__io_poll", "__GI___pthread_cond_wait", "sem_wait",
	"raise", "abort", "write", "main", "__libc_start_main", "start_thread", "clone3", "no_such_name_anywhere",
}

// searchNames are names to search an object's tables for: the node
// case's, the raw names of 15 entries of each table, the identifiers its mangled
// names spell and the tails of names (a linker stores a name as the
// tail of a longer one), and the names it imports.
func searchNames(t *testing.T, o *Object) []string {
	names := slices.Clone(nodeCaseNames)
	for _, tab := range o.namingTables() {
		step := max(1, tab.t.len()/15)
		for i := 1; i < tab.t.len(); i += step {
			s := tab.t.sym(i)
			if int(s.name) >= len(tab.t.strs) {
				continue
			}
			raw := symbolName(tab.t.strs, s.name)
			if raw == "" {
				continue
			}
			names = append(names, raw, raw[len(raw)/2:])
			if strings.HasPrefix(raw, "_Z") || strings.HasPrefix(raw, "_R") {
				names = append(names, sourceNames(raw)...)
			}
		}
	}
	if len(names) < 50 {
		t.Fatalf("%s: %d names to search: the object no longer tests what it should", o.Path(), len(names))
	}
	return names
}

// sourceNames are the identifiers a mangled name spells after their
// lengths.
func sourceNames(raw string) []string {
	var out []string
	for i := 0; i < len(raw); i++ {
		j := i
		for j < len(raw) && raw[j] >= '0' && raw[j] <= '9' {
			j++
		}
		if j == i || raw[i] == '0' {
			continue
		}
		n, err := strconv.Atoi(raw[i:j])
		if err == nil && j+n <= len(raw) {
			out = append(out, raw[j:j+n])
		}
		i = j
	}
	return out
}

// TestNameSearchAgreesWithIndex searches the string tables of a C++
// library, a C++ and a Rust program and node for thousands of names:
// where each is whole and whether a mangled name spells it must be what
// a search from one strings.Index hit to the next finds, and the search
// by a rare byte must have answered most of them in the big tables.
func TestNameSearchAgreesWithIndex(t *testing.T) {
	cxx, _ := filepath.Glob("/usr/lib/*-linux-gnu/libstdc++.so.6")
	if len(cxx) == 0 {
		testenv.Unavailable(t, "no libstdc++.so.6")
	}
	dir := t.TempDir()
	bins := []string{
		cxx[0],
		compile(t, dir, "g++", "cxxprog", "cc", cxxProgram, "-O1", "-g"),
		compile(t, dir, "rustc", "rustprog", "rs", rustProgram, "-g", "-C", "opt-level=1"),
		testenv.NeedTool(t, "node"),
	}
	for _, bin := range bins {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			o := mustOpen(t, bin)
			names := searchNames(t, o)
			var big, rare, searches int
			for _, tab := range o.namingTables() {
				strs := tab.t.strs
				if len(strs) >= sampleChunks*sampleChunk*4 {
					big++
				}
				for _, name := range names {
					searches++
					gotAt, gotMangled := spelledIn(strs, nil, name)
					wantAt, wantMangled := indexedSpelledIn(strs, name)
					if !slices.Equal(gotAt, wantAt) || gotMangled != wantMangled {
						t.Fatalf("%q in a table of %d bytes: whole at %v, mangled %v; strings.Index finds %v, %v",
							name, len(strs), gotAt, gotMangled, wantAt, wantMangled)
					}
					if _, ok := rareByte(strs, name); ok {
						rare++
					}
				}
			}
			t.Logf("%d searches, %d by a rare byte, %d tables of a sample's size", searches, rare, big)
			if big > 0 && rare < searches/(2*len(o.namingTables())) {
				t.Errorf("%d of %d searches went by a rare byte", rare, searches)
			}
		})
	}
}

// TestNodeNameSearchComparesFew counts, for the names a report of node's
// core looks up in node, the offsets of node's string tables the search
// compares with the name: fewer than one in 16 bytes, and fewer than
// the occurrences of the name's first byte, at each of which
// strings.Index stops.
func TestNodeNameSearchComparesFew(t *testing.T) {
	o := mustOpen(t, testenv.NeedTool(t, "node"))
	for _, tab := range o.namingTables() {
		strs := tab.t.strs
		for _, name := range nodeCaseNames[:8] {
			if name == "uv__io_poll" {
				continue // its rarest byte is its first: strings.Index's
			}
			r, ok := rareByte(strs, name)
			if !ok {
				t.Errorf("%q: no byte of it rare enough in a table of %d bytes", name, len(strs))
				continue
			}
			var got []int
			compared := occurrencesBy(strs, name, r, func(at int) bool { got = append(got, at); return true })
			firstByte := strings.Count(strs, name[:1])
			if compared*maxRareShare/2 > len(strs) || compared > firstByte {
				t.Errorf("%q: %d offsets compared in %d bytes (its first byte is at %d)", name, compared, len(strs), firstByte)
			}
			if want := strings.Count(strs, name); len(got) != want {
				t.Errorf("%q: %d occurrences found, strings.Count says %d", name, len(got), want)
			}
		}
	}
}

// TestImportLookupReadsOnlyItsEntries: a name node imports
// (pthread_cond_wait) is found whole in its tables but names no code
// symbol; the search's offsets leave a handful of entries to read.
func TestImportLookupReadsOnlyItsEntries(t *testing.T) {
	o := mustOpen(t, testenv.NeedTool(t, "node"))
	const name = "pthread_cond_wait"
	sp := o.spellings(name)
	if !sp.whole() {
		t.Fatalf("%s: node no longer imports %s", o.Path(), name)
	}
	entries := 0
	for n, tab := range sp.tabs {
		if len(sp.wholeAt[n]) == 0 {
			continue
		}
		for i := range tab.t.entriesNamedAt(sp.wholeAt[n]) {
			entries++
			if s := tab.t.sym(i); s.shndx != elf.SHN_UNDEF || symbolName(tab.t.strs, s.name) != name {
				t.Errorf("entry %d of a table: %+v, named %q", i, s, symbolName(tab.t.strs, s.name))
			}
		}
	}
	if entries == 0 || entries > 4 {
		t.Errorf("%d entries named where the search found %s", entries, name)
	}
	if e, ok := rawNameIn(name, sp.tabs, sp.wholeAt); ok {
		t.Errorf("the import %s found as %+v", name, e)
	}
	if e, ok := rawNameIn("uv__io_poll", sp.tabs, o.spellings("uv__io_poll").wholeAt); !ok || e.Addr == 0 {
		t.Errorf("uv__io_poll, which node defines: %+v, %v", e, ok)
	}
}

// indexOccurrences are the offsets of name in strs, from one
// strings.Index hit to the next.
func indexOccurrences(strs, name string) []int {
	out := []int{}
	for from := 0; name != ""; {
		i := strings.Index(strs[from:], name)
		if i < 0 {
			break
		}
		out = append(out, from+i)
		from += i + 1
	}
	return out
}

// FuzzNameSearch: on any table and name, the search by each byte of the
// name, and spelledIn, find what strings.Index finds; rareByte on a big
// table picks a byte of the name.
func FuzzNameSearch(f *testing.F) {
	f.Add([]byte("\x00_ZN4node3fooEv\x00foo@GLIBC_2.2.5\x00_RNvCs1_4main\x00"), "foo")
	f.Add([]byte("3foo4_bar5__baz\x00xbar\x00bar"), "bar")
	f.Add([]byte("__GI_raise\x00raise\x00_Z5raisev"), "raise")
	f.Add([]byte("aaaaaaaa"), "aa")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		strs := string(data)
		want := indexOccurrences(strs, name)
		for r := 0; r < len(name); r++ {
			got := []int{}
			occurrencesBy(strs, name, r, func(at int) bool { got = append(got, at); return true })
			if !slices.Equal(got, want) {
				t.Fatalf("by byte %d of %q: %v, strings.Index finds %v", r, name, got, want)
			}
		}
		gotAt, gotMangled := spelledIn(strs, nil, name)
		wantAt, wantMangled := indexedSpelledIn(strs, name)
		if !slices.Equal(gotAt, wantAt) || gotMangled != wantMangled {
			t.Fatalf("spelledIn(%q) = %v, %v; want %v, %v", name, gotAt, gotMangled, wantAt, wantMangled)
		}
		if len(data) > 0 && name != "" {
			// Big enough for rareByte to sample it.
			big := strings.Repeat(strs, sampleChunks*sampleChunk*4/len(strs)+1)
			got := []int{}
			occurrences(big, nil, name, func(at int) bool { got = append(got, at); return true })
			if want := indexOccurrences(big, name); !slices.Equal(got, want) {
				t.Fatalf("occurrences of %q in %d bytes: %d, strings.Index finds %d", name, len(big), len(got), len(want))
			}
		}
	})
}

// TestByteSampleKeptPerTable: the sample a search of a string table ranks
// a name's bytes by is taken once per table and kept by its object (the
// same for every symbolTable of it, one per string table), and the
// lookups by name take it there.
func TestByteSampleKeptPerTable(t *testing.T) {
	cxx, _ := filepath.Glob("/usr/lib/*-linux-gnu/libstdc++.so.6")
	if len(cxx) == 0 {
		testenv.Unavailable(t, "no libstdc++.so.6")
	}
	o := mustOpen(t, cxx[0])
	dyn, ok := o.symbolTable(elf.SHT_DYNSYM)
	if !ok || len(dyn.strs) < sampleChunks*sampleChunk*4 {
		t.Fatalf("%s: no .dynstr big enough to sample", cxx[0])
	}
	if again, _ := o.symbolTable(elf.SHT_DYNSYM); again.sample != dyn.sample {
		t.Errorf("a second symbolTable has a sample of its own")
	}
	if sym, ok := o.symbolTable(elf.SHT_SYMTAB); ok && sym.sample == dyn.sample {
		t.Errorf(".strtab and .dynstr share a sample")
	}
	if _, ok := o.LookupSymbol("__cxa_not_a_function"); ok {
		t.Fatalf("__cxa_not_a_function found")
	}
	if !dyn.sample.ok {
		t.Fatalf("the lookup did not take the sample the object keeps")
	}
	for _, name := range []string{"__cxa_throw", "_ZSt9terminatev", "pthread_cond_wait"} {
		r, ok := dyn.sample.rarest(name)
		if wr, wok := rareByte(dyn.strs, name); r != wr || ok != wok {
			t.Errorf("%q: the kept sample ranks byte %d (%v), a new one %d (%v)", name, r, ok, wr, wok)
		}
	}
}

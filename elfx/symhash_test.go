package elfx

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// readelfDefined is, per name and type (FUNC or OBJECT), the value of the
// first defined symbol of that name in file's table as readelf lists it
// (--dyn-syms or --syms), names without their @VERSION.
func readelfDefined(t *testing.T, file string, dynamic bool) map[string]map[elf.SymType]uint64 {
	flag := "--syms"
	if dynamic {
		flag = "--dyn-syms"
	}
	out := run(t, "", "readelf", "-W", flag, file)
	want := map[string]map[elf.SymType]uint64{}
	for _, line := range strings.Split(out, "\n") {
		// Num: Value Size Type Bind Vis Ndx Name
		f := strings.Fields(line)
		if len(f) < 8 || !strings.HasSuffix(f[0], ":") || f[6] == "UND" {
			continue
		}
		typ := map[string]elf.SymType{"FUNC": elf.STT_FUNC, "OBJECT": elf.STT_OBJECT}[f[3]]
		if typ == elf.STT_NOTYPE {
			continue
		}
		v, err := strconv.ParseUint(f[1], 16, 64)
		if err != nil {
			t.Fatalf("readelf line %q: %v", line, err)
		}
		name := f[7]
		if dynamic {
			name, _, _ = strings.Cut(name, "@")
		}
		if want[name] == nil {
			want[name] = map[elf.SymType]uint64{}
		}
		if _, seen := want[name][typ]; !seen {
			want[name][typ] = v
		}
	}
	return want
}

// checkDefined compares DefinedSymbol with readelf on every name of want
// (at most limit names when limit > 0), of both types, and on names that
// are not there.
func checkDefined(t *testing.T, o *Object, tab elf.SectionType, want map[string]map[elf.SymType]uint64, limit int) {
	t.Helper()
	if len(want) < 100 {
		t.Fatalf("%s: readelf lists only %d defined symbols", o.Path(), len(want))
	}
	n := 0
	for name, byType := range want {
		if limit > 0 && n >= limit {
			break
		}
		n++
		for _, typ := range []elf.SymType{elf.STT_FUNC, elf.STT_OBJECT} {
			v, ok := o.DefinedSymbol(tab, name, typ)
			w, wok := byType[typ]
			if ok != wok || v != w {
				t.Errorf("%s: DefinedSymbol(%v, %q, %v) = %#x, %v; readelf: %#x, %v", o.Path(), tab, name, typ, v, ok, w, wok)
			}
		}
		if _, ok := o.DefinedSymbol(tab, name+"_not_there", elf.STT_FUNC); ok {
			t.Errorf("%s: %q found", o.Path(), name+"_not_there")
		}
	}
}

// The GNU hash lookup of .dynsym finds what a scan of readelf's listing
// finds, for every exported function and object of libc and libstdc++.
func TestDefinedSymbolDynamicMatchesReadelf(t *testing.T) {
	testenv.NeedTool(t, "readelf")
	var libs []string
	for _, pat := range []string{"/lib/*-linux-gnu/libc.so.6", "/usr/lib/*-linux-gnu/libstdc++.so.6"} {
		paths, _ := filepath.Glob(pat)
		if len(paths) == 0 {
			testenv.Unavailable(t, "no "+pat)
		}
		libs = append(libs, paths[0])
	}
	for _, lib := range libs {
		o := mustOpen(t, lib)
		if _, ok := o.gnuHash(); !ok {
			t.Fatalf("%s: no GNU hash table read: the test would not exercise it", lib)
		}
		checkDefined(t, o, elf.SHT_DYNSYM, readelfDefined(t, lib, true), 0)
	}
	// The names libc exports are found, and only those.
	o := mustOpen(t, libs[0])
	if _, ok := o.DefinedSymbol(elf.SHT_DYNSYM, "__abort_msg", elf.STT_OBJECT); !ok {
		t.Errorf("%s: no __abort_msg", libs[0])
	}
	if _, ok := o.DefinedSymbol(elf.SHT_DYNSYM, "__abort_msg", elf.STT_FUNC); ok {
		t.Errorf("%s: __abort_msg found as a function", libs[0])
	}
}

// The full symbol table (libc's debug file: 10,000 entries, locals too)
// is scanned in place with the same answers as readelf's listing.
func TestDefinedSymbolTableMatchesReadelf(t *testing.T) {
	testenv.NeedTool(t, "readelf")
	dbg := libcWithDebug(t).DebugFile()
	checkDefined(t, mustOpen(t, dbg), elf.SHT_SYMTAB, readelfDefined(t, dbg, false), 300)
}

// A hand-made table: chains end at the end of the chain words and of the
// symbol table, a bloom word rejects, hostile sizes are refused.
func TestParseGNUHashBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"empty", nil, false},
		{"no buckets", le32(0, 1, 1, 6, 0, 0), false},
		{"bloom past the end", le32(1, 1, 1<<30, 6), false},
		{"buckets past the end", le32(1<<20, 1, 1, 6, 0), false},
		{"one bucket", le32(1, 1, 1, 6, ^uint32(0), 1), true},
	} {
		_, ok := parseGNUHash(tc.data, binary.LittleEndian, 4)
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, ok, tc.ok)
		}
	}
	// One bucket starting at symbol 1, no chain words: no candidate, no
	// read past the end.
	h, _ := parseGNUHash(le32(1, 1, 1, 6, ^uint32(0), 1), binary.LittleEndian, 4)
	for i := range h.candidates("x", 10) {
		t.Errorf("candidate %d from a table without chain words", i)
	}
	// With a chain word equal to the hash: one candidate, also when
	// the chain's end bit is missing and the symbol table ends.
	hash := gnuHashOf("x")
	h, _ = parseGNUHash(le32(1, 1, 1, 6, ^uint32(0), 1, hash&^1, hash&^1, hash&^1), binary.LittleEndian, 4)
	var got []int
	for i := range h.candidates("x", 3) {
		got = append(got, i)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("candidates %v, want [1 2] (the table has 3 symbols)", got)
	}
	// A bloom word of zeros rejects every name.
	h, _ = parseGNUHash(le32(1, 1, 1, 6, 0, 1, hash|1), binary.LittleEndian, 4)
	for i := range h.candidates("x", 3) {
		t.Errorf("candidate %d through an empty bloom filter", i)
	}
}

// le32 is words in little-endian order.
func le32(words ...uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// gnuHashBinaries are real binaries with a .gnu.hash: glibc, and the
// python and node executables when installed (node's .dynsym has 75,000
// entries).
func gnuHashBinaries(t testing.TB) []string {
	paths := []string{"/usr/lib/x86_64-linux-gnu/libc.so.6"}
	for _, p := range []string{"/usr/bin/python3", "/usr/bin/node"} {
		if _, err := os.Stat(p); err == nil {
			paths = append(paths, p)
		}
	}
	return paths
}

// Every name .dynsym defines is found through .gnu.hash at the value
// debug/elf reads for its first definition, and a name it does not define
// is not found.
func TestDynsymHashMatchesDebugElf(t *testing.T) {
	for _, path := range gnuHashBinaries(t) {
		t.Run(path, func(t *testing.T) {
			o, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			syms, err := o.ELF().DynamicSymbols()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]uint64{}
			var names []string
			for _, s := range syms {
				if s.Name == "" || s.Section == elf.SHN_UNDEF || s.Value == 0 {
					continue
				}
				if _, dup := want[s.Name]; !dup {
					want[s.Name] = s.Value
					names = append(names, s.Name)
				}
			}
			if len(names) < 100 {
				t.Fatalf("only %d defined dynamic symbols", len(names))
			}
			if _, ok := o.gnuHash(); !ok {
				t.Fatal("no usable .gnu.hash for .dynsym")
			}
			names = append(names, "no_such_symbol_in_any_table", "")
			got := map[string]uint64{}
			o.scanSymbols(elf.SHT_DYNSYM, names, got)
			for _, n := range names {
				if got[n] != want[n] {
					t.Errorf("%q: %#x through .gnu.hash, debug/elf says %#x", n, got[n], want[n])
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d names found, %d defined", len(got), len(want))
			}
		})
	}
}

// FuzzGNUHash: a mutated .gnu.hash (glibc's, with its real .dynsym) never
// makes a lookup panic, read outside the table or visit more entries than
// the symbol table has.
func FuzzGNUHash(f *testing.F) {
	o, err := Open("/usr/lib/x86_64-linux-gnu/libc.so.6")
	if err != nil {
		f.Fatal(err)
	}
	defer o.Close()
	tab := o.section(".dynsym")
	nsyms := int(tab.Size / tab.Entsize)
	b, err := o.sectionData(o.section(".gnu.hash"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, "malloc", nsyms)
	f.Add(b[:len(b)/2], "free", nsyms)
	f.Add([]byte("\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x06\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00"), "x", 1)
	f.Fuzz(func(t *testing.T, b []byte, name string, nsyms int) {
		h, ok := parseGNUHash(b, binary.LittleEndian, 8)
		if !ok || nsyms < 0 {
			return
		}
		visits := 0
		for i := range h.candidates(name, nsyms) {
			visits++
			if i >= nsyms || i < int(h.symoffset) {
				t.Fatalf("candidate %d outside symbols [%d,%d)", i, h.symoffset, nsyms)
			}
		}
		if visits > nsyms {
			t.Fatalf("%d candidates for %d symbols", visits, nsyms)
		}
	})
}

// DefinedSymbol's search of a full symbol table, which reads only the
// entries named where the string table holds the name whole, answers
// as the pass over every entry it replaced, on libc's debug .symtab:
// names there, names only inside others (a suffix, a prefix), names not
// there, of both types.
func TestDefinedSymbolTableAsEntryScan(t *testing.T) {
	testenv.NeedTool(t, "readelf")
	dbg := libcWithDebug(t).DebugFile()
	o := mustOpen(t, dbg)
	tab, ok := o.symbolTable(elf.SHT_SYMTAB)
	if !ok {
		t.Fatalf("%s: no .symtab", dbg)
	}
	scan := func(name string, typ elf.SymType) (uint64, bool) {
		for i := 1; i < tab.len(); i++ {
			s := tab.sym(i)
			if s.shndx != elf.SHN_UNDEF && elf.ST_TYPE(s.info) == typ && tab.nameIs(s.name, name) {
				return s.value, true
			}
		}
		return 0, false
	}
	names := []string{"", "__cxa_terminate_handler", "__abort_msg", "abort_msg", "__abort_ms", "main_arena"}
	n := 0
	for name := range readelfDefined(t, dbg, false) {
		if n++; n%23 == 0 && len(name) > 2 {
			names = append(names, name, name[1:], name[:len(name)-1])
		}
	}
	found := 0
	for _, name := range names {
		for _, typ := range []elf.SymType{elf.STT_FUNC, elf.STT_OBJECT} {
			v, ok := o.DefinedSymbol(elf.SHT_SYMTAB, name, typ)
			wv, wok := scan(name, typ)
			if v != wv || ok != wok {
				t.Errorf("DefinedSymbol(SYMTAB, %q, %v) = %#x, %v; every entry read: %#x, %v", name, typ, v, ok, wv, wok)
			}
			if ok {
				found++
			}
		}
	}
	if found < len(names)/6 {
		t.Fatalf("only %d of %d names found: the names do not exercise the search", found, 2*len(names))
	}
}

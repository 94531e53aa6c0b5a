package elfx

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"testing"
)

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
			tab := o.section(".dynsym")
			if tab == nil || o.dynsymHash(tab, int(tab.Size/tab.Entsize)) == nil {
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
		h, err := parseGNUHash(b, binary.LittleEndian, elf.ELFCLASS64, nsyms)
		if err != nil {
			return
		}
		visits := 0
		h.candidates(name, func(i uint32) bool {
			visits++
			if i >= h.nsyms || i < h.symoffset {
				t.Fatalf("candidate %d outside symbols [%d,%d)", i, h.symoffset, h.nsyms)
			}
			return true
		})
		if visits > nsyms {
			t.Fatalf("%d candidates for %d symbols", visits, nsyms)
		}
	})
}

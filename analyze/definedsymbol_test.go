package analyze

import (
	"debug/elf"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestDefinedSymbolOncePerObject: crash analysis's lookups of symbols
// by name (symbolAddr: libstdc++'s __cxa_get_globals for each uncaught
// exception, glibc's __abort_msg) are kept with the objects of a batch
// (one elfx.Cache), so a later core of the same program asks none of
// its modules again. A name in no dynamic symbol table was searched for
// in every module's full symbol table, entry by entry, every core (7%
// of a warm batch a third of whose cores were uncaught exceptions
// against libstdc++'s debug build). The later core finds what the first
// found, at its own bias.
func TestDefinedSymbolOncePerObject(t *testing.T) {
	testenv.NeedCores(t)
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "prog", "#include <stdlib.h>\nint main(void) { abort(); }\n", "-g", "-fPIE", "-pie")
	cores := crashTimes(t, dir, exe, 2, nil)
	objs := elfx.NewCache()
	defer objs.Close()
	type found struct {
		addr uint64
		ok   bool
	}
	lookups := []struct {
		name string
		typ  elf.SymType
	}{{"main", elf.STT_FUNC}, {"__abort_msg", elf.STT_OBJECT}, {"no_such_symbol_anywhere", elf.STT_FUNC}}
	var first []found
	for i, core := range cores {
		s, err := Open(core, Options{Executable: exe, Objects: objs})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			// Every object the first core searched holds its answers:
			// asking again computes nothing.
			for _, m := range s.target.modules {
				obj := m.obj()
				if obj == nil || obj.ELF() == nil {
					continue
				}
				for _, tab := range []elf.SectionType{elf.SHT_DYNSYM, elf.SHT_SYMTAB} {
					key := definedSymbolKey{tab, "no_such_symbol_anywhere", elf.STT_FUNC}
					obj.Keyed(key, func() any {
						t.Errorf("core %d: %s's %v searched again for %s", i, obj.Path(), tab, key.name)
						return definedSymbolValue{}
					})
				}
			}
		}
		for j, l := range lookups {
			addr, ok := s.target.symbolAddr(l.name, l.typ)
			if i == 0 {
				first = append(first, found{addr, ok})
				continue
			}
			// PIE: the same symbol at another address, found alike.
			if ok != first[j].ok || ok && (addr&0xfff) != (first[j].addr&0xfff) {
				t.Errorf("%s: first core %#x %v, later core %#x %v", l.name, first[j].addr, first[j].ok, addr, ok)
			}
		}
		s.Close()
	}
	if !first[0].ok || !first[1].ok || first[2].ok {
		t.Errorf("first core's lookups %v: want main and __abort_msg found, the third not", first)
	}
}

package unwindtest

import (
	"debug/elf"
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
)

// DynListSource is libunwind's accessor of its registration list, with
// a main so that it links: what arch packages' DynListAddr decoders are
// checked against, compiled as gcc compiles it for their arch.
const DynListSource = `
struct dyn_list { long a; } _U_dyn_info_list;
void *_U_dyn_info_list_addr(void) { return &_U_dyn_info_list; }
int main(void) { return _U_dyn_info_list_addr() == 0; }
`

// FileSpace is a static executable's loadable segments at their
// addresses: what the process's memory holds before it runs (the GOT of
// a static program is filled at link time).
func FileSpace(f *elf.File) *Space {
	ptr := 8
	if f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	return &Space{Order: f.ByteOrder, Ptr: ptr, Read: func(addr uint64, p []byte) error {
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_LOAD && addr >= prog.Vaddr && addr+uint64(len(p)) <= prog.Vaddr+prog.Filesz {
				_, err := prog.ReadAt(p, int64(addr-prog.Vaddr))
				return err
			}
		}
		return unwind.ErrUnavailable
	}}
}

// CheckDynListAddr checks arch's DynListAddr on the static executable
// exe (built from DynListSource): the address it decodes from
// _U_dyn_info_list_addr's code must be the symbol table's
// _U_dyn_info_list.
func CheckDynListAddr(t *testing.T, arch unwind.Arch, exe string) {
	t.Helper()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var fn, list uint64
	for _, s := range syms {
		switch s.Name {
		case "_U_dyn_info_list_addr":
			fn = s.Value
		case "_U_dyn_info_list":
			list = s.Value
		}
	}
	if fn == 0 || list == 0 {
		t.Fatalf("symbols: _U_dyn_info_list_addr %#x, _U_dyn_info_list %#x", fn, list)
	}
	got, err := arch.DynListAddr(FileSpace(f), f, 0, fn)
	if err != nil {
		t.Fatal(err)
	}
	if got != list {
		t.Errorf("DynListAddr = %#x, symbol table says %#x", got, list)
	}
}

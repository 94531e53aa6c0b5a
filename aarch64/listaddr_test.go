package aarch64_test

import (
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/aarch64"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
)

// fileSpace is a static executable's loadable segments at their
// addresses: what the process's memory holds before it runs (the GOT of
// a static program is filled at link time).
type fileSpace struct{ f *elf.File }

func (s fileSpace) ByteOrder() binary.ByteOrder { return binary.LittleEndian }
func (s fileSpace) PtrSize() int                { return 8 }
func (s fileSpace) ReadMem(addr uint64, p []byte) error {
	for _, prog := range s.f.Progs {
		if prog.Type == elf.PT_LOAD && addr >= prog.Vaddr && addr+uint64(len(p)) <= prog.Vaddr+prog.Filesz {
			_, err := prog.ReadAt(p, int64(addr-prog.Vaddr))
			return err
		}
	}
	return unwind.ErrUnavailable
}
func (fileSpace) FindProcInfo(uint64) (*unwind.ProcInfo, error) { return nil, unwind.ErrNoInfo }
func (fileSpace) ProcName(uint64) (string, uint64, error)       { return "", 0, unwind.ErrNoInfo }
func (fileSpace) DynInfoListAddr() (uint64, error)              { return 0, unwind.ErrNoInfo }

// TestDynListAddr builds libunwind's accessor the way gcc compiles it for
// aarch64 (adrp+add without -fPIC; adrp+ldr from the GOT with it; after a
// bti landing pad with branch protection) and checks the decoded address
// against the symbol table's _U_dyn_info_list.
func TestDynListAddr(t *testing.T) {
	src := `
struct dyn_list { long a; } _U_dyn_info_list;
void *_U_dyn_info_list_addr(void) { return &_U_dyn_info_list; }
int main(void) { return _U_dyn_info_list_addr() == 0; }
`
	for name, flags := range map[string][]string{
		"adrp-add":     {"-O2", "-static"},
		"adrp-ldr-got": {"-O2", "-fPIC", "-static"},
		"bti":          {"-O2", "-fPIC", "-static", "-mbranch-protection=standard"},
	} {
		t.Run(name, func(t *testing.T) {
			exe := testenv.BuildCross(t, testenv.AArch64, t.TempDir(), "dl", src, flags...)
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
			got, err := aarch64.Arch{}.DynListAddr(fileSpace{f}, f, 0, fn)
			if err != nil {
				t.Fatal(err)
			}
			if got != list {
				t.Errorf("DynListAddr = %#x, symbol table says %#x", got, list)
			}
		})
	}
}

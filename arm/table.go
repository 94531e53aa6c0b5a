package arm

import (
	"debug/elf"
	"sync"

	"github.com/coreunwind/coreunwind/arm/exidx"
	"github.com/coreunwind/coreunwind/unwind"
)

// tableCache keeps parsed index tables per *elf.File.
var tableCache sync.Map // *elf.File -> *tableOnce

type tableOnce struct {
	once sync.Once
	t    *exidx.Table
	err  error
}

// FindTableEntry implements unwind.TableArch: the .ARM.exidx entry
// covering link-time address addr of f.
func (Arch) FindTableEntry(f *elf.File, addr uint64) (*unwind.ProcInfo, error) {
	if f == nil || f.Machine != elf.EM_ARM || f.Type == elf.ET_REL {
		return nil, unwind.ErrNoInfo
	}
	v, _ := tableCache.LoadOrStore(f, &tableOnce{})
	to := v.(*tableOnce)
	to.once.Do(func() { to.t, to.err = exidx.ReadTable(f) })
	if to.err != nil {
		return nil, unwind.ErrNoInfo
	}
	e, ok := to.t.Lookup(addr)
	if !ok || addr >= e.End && e.End > e.Start {
		return nil, unwind.ErrNoInfo
	}
	return &unwind.ProcInfo{StartIP: e.Start, EndIP: e.End, Format: unwind.FormatUnwindTable, Info: e}, nil
}

// TablesAfterCFI: DWARF CFI, when an object has an FDE for the address,
// is preferred to its index entry, as gdb prefers it.
func (Arch) TablesAfterCFI() {}

package ia64

import (
	"debug/elf"
	"sync"

	"github.com/coreunwind/coreunwind/ia64/unwtab"
	"github.com/coreunwind/coreunwind/unwind"
)

// tableCache keeps parsed tables per *elf.File.
var tableCache sync.Map // *elf.File -> *tableOnce

type tableOnce struct {
	once sync.Once
	t    *unwtab.Table
	err  error
}

// cachedTable returns f's table, parsing it once.
func cachedTable(f *elf.File) (*unwtab.Table, error) {
	v, _ := tableCache.LoadOrStore(f, &tableOnce{})
	to := v.(*tableOnce)
	to.once.Do(func() { to.t, to.err = unwtab.ReadTable(f) })
	return to.t, to.err
}

// FindTableEntry implements unwind.TableArch: the entry covering the
// link-time address addr of f.
func (Arch) FindTableEntry(f *elf.File, addr uint64) (*unwind.ProcInfo, error) {
	if f == nil || f.Machine != elf.EM_IA_64 {
		return nil, unwind.ErrNoInfo
	}
	t, err := cachedTable(f)
	if err != nil {
		return nil, unwind.ErrNoInfo
	}
	e, ok := t.Lookup(addr)
	if !ok {
		return nil, unwind.ErrNoInfo
	}
	return &unwind.ProcInfo{StartIP: e.Start, EndIP: e.End, Format: unwind.FormatUnwindTable, Info: e}, nil
}

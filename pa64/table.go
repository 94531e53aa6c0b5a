package pa64

import (
	"debug/elf"
	"errors"
	"sync"

	"github.com/coreunwind/coreunwind/pa64/unwtab"
	"github.com/coreunwind/coreunwind/unwind"
)

// findTableEntry is unwind.TableArch for both arches: the entry for a
// link-time address as a ProcInfo (EndIP exclusive: the last instruction's
// end), Info the *Entry.
func findTableEntry(f *elf.File, addr uint64) (*unwind.ProcInfo, error) {
	t, err := TableOf(f)
	if err != nil {
		return nil, unwind.ErrNoInfo
	}
	e, ok := t.Lookup(addr)
	if !ok {
		return nil, unwind.ErrNoInfo
	}
	return &unwind.ProcInfo{StartIP: e.Start, EndIP: e.End + 4, Format: unwind.FormatUnwindTable, Info: e}, nil
}

// tables caches the parsed table per *elf.File (nil value: no table).
var tables sync.Map // *elf.File -> *unwtab.Table

// TableOf returns f's table, parsed once per *elf.File.
func TableOf(f *elf.File) (*unwtab.Table, error) {
	if v, ok := tables.Load(f); ok {
		if v == nil {
			return nil, unwtab.ErrNoTable
		}
		return v.(*unwtab.Table), nil
	}
	t, err := unwtab.ReadTable(f)
	if err != nil {
		if errors.Is(err, unwtab.ErrNoTable) {
			tables.Store(f, nil)
		}
		return nil, err
	}
	v, _ := tables.LoadOrStore(f, t)
	return v.(*unwtab.Table), nil
}

package pa64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/pa64/unwtab"
	"github.com/coreunwind/coreunwind/unwind"
)

// Registered TABLE and REMOTE_TABLE info on PA-RISC: a .PARISC.unwind
// table in target memory, TableLen target words of 16-byte entries
// (region start, region end — its last instruction —, two descriptor
// words; 32-bit fields in the target's byte order for both word sizes),
// offsets from Segbase, sorted by start. Both formats are read through
// the address space: for a core there is no "local" table.

// maxDynTableEntries bounds a registered table's entry count.
const maxDynTableEntries = 1 << 24

// dynTableLookup binary-searches the registered table for the entry
// covering lpc; the entry's Start and End are run-time addresses.
func dynTableLookup(as unwind.AddrSpace, d *unwind.DynInfo, lpc uint64) (*unwtab.Entry, bool, error) {
	t := d.Table
	if t == nil {
		return nil, false, fmt.Errorf("dynamic table at %#x: no table info: %w", lpc, unwind.ErrNoInfo)
	}
	w := uint64(as.PtrSize())
	if w != 4 && w != 8 {
		return nil, false, fmt.Errorf("dynamic table %q: pointer size %d: %w", t.Name, w, unwind.ErrBadFrame)
	}
	if t.TableLen > maxDynTableEntries*unwtab.EntrySize/w {
		return nil, false, fmt.Errorf("dynamic table %q: %d words: %w", t.Name, t.TableLen, unwind.ErrBadFrame)
	}
	n := t.TableLen * w / unwtab.EntrySize
	rel := lpc - t.Segbase
	order := as.ByteOrder()
	var b [unwtab.EntrySize]byte
	lo, hi := uint64(0), n
	for lo < hi {
		mid := lo + (hi-lo)/2
		if err := as.ReadMem(t.TableData+mid*unwtab.EntrySize, b[:]); err != nil {
			return nil, false, fmt.Errorf("dynamic table %q entry %d: %w", t.Name, mid, err)
		}
		e := unwtab.Entry{
			RawStart: order.Uint32(b[0:]),
			RawEnd:   order.Uint32(b[4:]),
			Desc:     unwtab.Descriptor{W1: order.Uint32(b[8:]), W2: order.Uint32(b[12:])},
		}
		switch {
		case lpc < t.Segbase || rel < uint64(e.RawStart):
			hi = mid
		case rel >= uint64(e.RawEnd)+4:
			lo = mid + 1
		default:
			e.Start, e.End = t.Segbase+uint64(e.RawStart), t.Segbase+uint64(e.RawEnd)
			return &e, true, nil
		}
	}
	return nil, false, nil
}

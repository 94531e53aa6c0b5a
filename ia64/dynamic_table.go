package ia64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/ia64/unwtab"
	"github.com/coreunwind/coreunwind/unwind"
)

// Registered TABLE and REMOTE_TABLE info on IA-64: an .IA_64.unwind
// table and its info blocks in target memory (see dynamic.go). Both
// formats are read through the address space the same way: for a core
// there is no "local" table.

// Bounds on what a registered table may make us read.
const (
	maxDynTableEntries = 1 << 24
	maxDynInfoBytes    = 1 << 16 // one procedure's descriptor area
)

// dynamicTableScript finds the table entry covering lookup and runs its
// descriptors to ip's slot.
func dynamicTableScript(as unwind.AddrSpace, d *unwind.DynInfo, lookup, ip uint64, pr *uint64) (*script, bool, error) {
	t := d.Table
	if t == nil {
		return nil, false, fmt.Errorf("dynamic table at %#x: no table info: %w", ip, unwind.ErrNoInfo)
	}
	start, end, infoOff, found, err := dynTableLookup(as, t, lookup-t.Segbase)
	if err != nil {
		return nil, false, fmt.Errorf("dynamic table %q: %w", t.Name, err)
	}
	if !found {
		return dynLeafScript, false, nil
	}
	info, err := readDynInfoBlock(as, t.Segbase+infoOff)
	if err != nil {
		return nil, false, fmt.Errorf("dynamic table %q entry [%#x, %#x): %w", t.Name, t.Segbase+start, t.Segbase+end, err)
	}
	s, predicated, err := descriptorScript(info.Desc, t.Segbase+start, ip, pr)
	if err != nil {
		return nil, false, fmt.Errorf("dynamic table %q: %w", t.Name, err)
	}
	s.dynamic = true
	return s, predicated, nil
}

// dynTableLookup binary-searches the table in target memory for the
// entry covering rel (an offset from the segment base).
func dynTableLookup(as unwind.AddrSpace, t *unwind.DynTableInfo, rel uint64) (start, end, info uint64, found bool, err error) {
	w := uint64(as.PtrSize())
	if w != 4 && w != 8 {
		return 0, 0, 0, false, fmt.Errorf("pointer size %d: %w", w, unwind.ErrBadFrame)
	}
	n := t.TableLen / 3
	if n > maxDynTableEntries {
		return 0, 0, 0, false, fmt.Errorf("%d entries: %w", n, unwind.ErrBadFrame)
	}
	buf := make([]byte, 3*w)
	entry := func(i uint64) error {
		if err := as.ReadMem(t.TableData+i*3*w, buf); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		word := func(b []byte) uint64 {
			if w == 4 {
				return uint64(as.ByteOrder().Uint32(b))
			}
			return as.ByteOrder().Uint64(b)
		}
		start, end, info = word(buf), word(buf[w:]), word(buf[2*w:])
		return nil
	}
	lo, hi := uint64(0), n
	for lo < hi {
		mid := lo + (hi-lo)/2
		if err := entry(mid); err != nil {
			return 0, 0, 0, false, err
		}
		switch {
		case rel < start:
			hi = mid
		case rel >= end:
			lo = mid + 1
		default:
			return start, end, info, true, nil
		}
	}
	return 0, 0, 0, false, nil
}

// readDynInfoBlock reads the unwind info block at addr from target
// memory: the header word, then as many descriptor words as it says
// (bounded), then the personality word when a handler flag is set.
func readDynInfoBlock(as unwind.AddrSpace, addr uint64) (*unwtab.Info, error) {
	w := uint64(as.PtrSize())
	var hdr [8]byte
	if err := as.ReadMem(addr, hdr[:]); err != nil {
		return nil, fmt.Errorf("info block header at %#x: %w", addr, err)
	}
	h := as.ByteOrder().Uint64(hdr[:])
	n := (h & 0xffffffff) * w
	if n > maxDynInfoBytes {
		return nil, fmt.Errorf("info block at %#x: %d bytes of descriptors: %w", addr, n, unwind.ErrBadFrame)
	}
	if h>>32&(unwtab.FlagEHandler|unwtab.FlagUHandler) != 0 {
		n += w
	}
	buf := make([]byte, 8+n)
	copy(buf, hdr[:])
	if err := as.ReadMem(addr+8, buf[8:]); err != nil {
		return nil, fmt.Errorf("info block at %#x: %w", addr, err)
	}
	return unwtab.ParseInfo(buf, 0, as.ByteOrder(), int(w))
}

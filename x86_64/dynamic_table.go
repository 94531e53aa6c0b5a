package x86_64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

// On x86-64 the TABLE and REMOTE_TABLE formats carry what libunwind's
// dwarf_search_unwind_table reads: TableData points at an .eh_frame_hdr
// style binary-search table of {int32 start_ip_offset, int32 fde_offset}
// pairs relative to Segbase, sorted by start, TableLen 8-byte words long
// (one word per pair); each FDE and its CIE are in target memory. Both
// formats are read from the target the same way: for a core there is no
// "local" table.

// Bounds on what a registered table may make us read.
const (
	maxDynTableEntries = 1 << 24
	maxDynFDESize      = 1 << 20
)

// tableFDE finds and parses the FDE covering lpc in a registered table.
func tableFDE(as unwind.AddrSpace, d *unwind.DynInfo, lpc uint64) (*cfi.FDE, error) {
	t := d.Table
	if t == nil || t.TableData == 0 || t.TableLen == 0 {
		return nil, fmt.Errorf("dynamic table %q: empty: %w", t.Name, unwind.ErrNoInfo)
	}
	n := t.TableLen // entries: 8 bytes each, one 8-byte word
	if n > maxDynTableEntries {
		return nil, fmt.Errorf("dynamic table %q: %d entries: %w", t.Name, n, unwind.ErrBadFrame)
	}
	key := int64(lpc - d.LoadOffset - t.Segbase)
	entry := func(i uint64) (start, fde int64, err error) {
		var b [8]byte
		if err := as.ReadMem(t.TableData+8*i, b[:]); err != nil {
			return 0, 0, err
		}
		o := as.ByteOrder()
		return int64(int32(o.Uint32(b[:]))), int64(int32(o.Uint32(b[4:]))), nil
	}
	// The last entry whose start is at or below key.
	lo, hi := uint64(0), n
	for lo < hi {
		mid := lo + (hi-lo)/2
		s, _, err := entry(mid)
		if err != nil {
			return nil, fmt.Errorf("dynamic table %q entry %d: %w", t.Name, mid, err)
		}
		if s <= key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return nil, fmt.Errorf("dynamic table %q: nothing at %#x: %w", t.Name, lpc, unwind.ErrNoInfo)
	}
	_, fdeOff, err := entry(lo - 1)
	if err != nil {
		return nil, fmt.Errorf("dynamic table %q entry %d: %w", t.Name, lo-1, err)
	}
	fde, err := readFDE(as, t.Segbase+uint64(fdeOff), lpc-d.LoadOffset)
	if err != nil {
		return nil, fmt.Errorf("dynamic table %q: %w", t.Name, err)
	}
	return fde, nil
}

// readFDE reads the FDE at addr and its CIE from target memory and parses
// them. The CIE is copied right before the FDE so that the FDE keeps its
// address (pc-relative pointers stay right) and the pair forms a small
// .eh_frame of its own.
func readFDE(as unwind.AddrSpace, addr, pc uint64) (*cfi.FDE, error) {
	fde, err := readEntry(as, addr)
	if err != nil {
		return nil, fmt.Errorf("FDE at %#x: %w", addr, err)
	}
	order := as.ByteOrder()
	ciePtr := uint64(order.Uint32(fde[4:]))
	if ciePtr == 0 || ciePtr > addr+4 {
		return nil, fmt.Errorf("FDE at %#x: CIE pointer %#x: %w", addr, ciePtr, unwind.ErrBadFrame)
	}
	cieAddr := addr + 4 - ciePtr
	cie, err := readEntry(as, cieAddr)
	if err != nil {
		return nil, fmt.Errorf("CIE at %#x: %w", cieAddr, err)
	}
	if order.Uint32(cie[4:]) != 0 {
		return nil, fmt.Errorf("CIE at %#x: not a CIE: %w", cieAddr, unwind.ErrBadFrame)
	}
	blob := make([]byte, 0, len(cie)+len(fde)+4)
	blob = append(blob, cie...)
	blob = append(blob, fde...)
	order.PutUint32(blob[len(cie)+4:], uint32(len(cie)+4))
	blob = append(blob, 0, 0, 0, 0) // terminator
	tab, err := cfi.NewEHFrame(blob, addr-uint64(len(cie)), nil, 0, order, 8)
	if err != nil {
		return nil, err
	}
	f, err := tab.FDEForPC(pc)
	if err != nil {
		return nil, fmt.Errorf("FDE at %#x: %w", addr, err)
	}
	return f, nil
}

// readEntry reads one 32-bit-DWARF CFI entry (length field included).
func readEntry(as unwind.AddrSpace, addr uint64) ([]byte, error) {
	var lb [4]byte
	if err := as.ReadMem(addr, lb[:]); err != nil {
		return nil, err
	}
	n := uint64(as.ByteOrder().Uint32(lb[:]))
	if n < 4 || n > maxDynFDESize {
		return nil, fmt.Errorf("entry length %#x: %w", n, unwind.ErrBadFrame)
	}
	b := make([]byte, 4+n)
	if err := as.ReadMem(addr, b); err != nil {
		return nil, err
	}
	return b, nil
}

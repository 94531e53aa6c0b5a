package ia64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/internal/crossarch/dynlist"
)

// The libunwind-dynamic structures (libunwind-dynamic.h, LP64), as a
// process that registered generated code would hold them: the test lays
// them out in the interpreted machine's memory, so its core carries a
// registration list. The layout here is written from the C header, not
// from the product's reader, so that the two check each other.

// The libunwind dynamic-info structures, as the shared writer lays them
// out (LP64, in the machine's byte order).
type (
	DynOp     = dynlist.DynOp
	DynRegion = dynlist.DynRegion
	DynEntry  = dynlist.DynEntry
)

// WriteBytes stores b at addr; all of it must be in one writable region.
func (m *Machine) WriteBytes(addr uint64, b []byte) error {
	r := m.region(addr, uint64(len(b)))
	if r == nil {
		return fmt.Errorf("no region holds [%#x, %#x)", addr, addr+uint64(len(b)))
	}
	copy(r.Data[addr-r.Base:], b)
	return nil
}

// DynArea allocates from a piece of the machine's memory.
type DynArea struct{ w *dynlist.Writer }

// NewDynArea hands out [base, base+n).
func (m *Machine) NewDynArea(base, n uint64) *DynArea {
	put := func(addr uint64, b []byte) bool { return m.WriteBytes(addr, b) == nil }
	return &DynArea{w: dynlist.NewWriter(m.Order, 8, base, n, put)}
}

// Put stores b 16-byte aligned and returns its address.
func (a *DynArea) Put(b []byte) (uint64, error) { return a.w.Alloc(b) }

// WriteDynList writes entries into the area and links them, in order,
// into the list header at list (generation gen).
func (m *Machine) WriteDynList(list uint64, gen uint32, a *DynArea, entries []DynEntry) error {
	return a.w.WriteList(list, gen, entries)
}

// SlotOf is the slot index, from the bundle-aligned start, of the first
// instruction in [start, end) whose text begins with prefix (objdump's
// spelling: "adds r12=-48,r12"); -1 if there is none.
func (m *Machine) SlotOf(start, end uint64, prefix string) int32 {
	best := uint64(0)
	found := false
	for a, in := range m.Insns {
		if a >= start && a < end && len(in.Text) >= len(prefix) && in.Text[:len(prefix)] == prefix && (!found || a < best) {
			best, found = a, true
		}
	}
	if !found {
		return -1
	}
	return int32(3*((best&^0xf)-start)/16 + best&0xf)
}

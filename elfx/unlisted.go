package elfx

import (
	"debug/dwarf"
	"sync"
)

// An address .debug_aranges does not cover (_start, the PLT, code
// without DWARF) may still lie in a unit it leaves out: LTO's early-debug
// units (python3.11-dbg has 358 of them beside 146 listed ones) and
// assembler units that carry only a line program. Those units are found
// by walking the unit headers and read one by one, as the listed ones
// are; their own top DIEs (or line programs) give their ranges. This
// replaces a dwarf.Data over the whole section and the eager index over
// every unit, which read every DIE of every unit without ranges.

// unlistedUnits is the lazy index's index over its unlisted units.
type unlistedUnits struct {
	once sync.Once
	x    *dwarfIndex
}

// unlistedIndex returns the index over the units .debug_aranges does not
// list, built on first use.
func (l *lazyDWARF) unlistedIndex() *dwarfIndex {
	l.unlisted.once.Do(func() {
		x := &dwarfIndex{name: l.name, lazy: l, unlisted: true}
		var ivs []interval
		for _, cu := range l.walkUnits() {
			if _, listed := l.listed[uint64(cu.off)]; listed {
				continue
			}
			if cu.open() != nil {
				continue
			}
			switch cu.entry.Tag {
			case dwarf.TagCompileUnit, dwarf.TagSkeletonUnit, dwarf.TagPartialUnit:
			default:
				continue // type units
			}
			idx := int32(len(x.cus))
			x.cus = append(x.cus, cu)
			for _, rg := range cu.codeRanges(x) {
				ivs = append(ivs, interval{lo: rg[0], hi: rg[1], idx: idx})
			}
		}
		x.byPC = newIntervalIndex(ivs)
		l.unlisted.x = x
	})
	return l.unlisted.x
}

// walkUnits returns every unit of .debug_info in section order, up to
// the first damaged header (as the eager index keeps the units before
// the damage), recording their extents for references between units.
func (l *lazyDWARF) walkUnits() []*cuIndex {
	var out []*cuIndex
	size := uint64(len(l.info.buf))
	for off := uint64(0); off < size; {
		h, err := l.readUnitHeader(off)
		if err != nil {
			break
		}
		l.unitsMu.Lock()
		l.addSpan(unitSpan{off, h.end})
		out = append(out, l.unitStartingAt(off))
		l.unitsMu.Unlock()
		off = h.end
	}
	return out
}

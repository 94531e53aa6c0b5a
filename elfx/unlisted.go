package elfx

import (
	"debug/dwarf"
	"encoding/binary"
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
		l.keepForWalk()
		// LTO's early-debug units, which have no ranges, have their
		// line program headers read: spread over the whole section
		// (python3.11-dbg's first lies at 98% of it).
		p := newPrefetcher()
		defer p.wait()
		l.prefetchWhole(p, l.info, l.abbrev, l.line)
		x := &dwarfIndex{name: l.name, lazy: l, unlisted: true}
		var ivs []interval
		for _, cu := range l.walkUnits() {
			if _, listed := l.listed[uint64(cu.off)]; listed {
				continue
			}
			top, ok := l.readUnitTop(uint64(cu.off))
			if !ok {
				if cu.open() != nil {
					continue
				}
				top = entryTop(cu.entry)
			}
			switch top.tag {
			case dwarf.TagCompileUnit, dwarf.TagSkeletonUnit, dwarf.TagPartialUnit:
			default:
				continue // type units
			}
			code := !l.noCode(top)
			if code && cu.open() != nil {
				continue
			}
			idx := int32(len(x.cus))
			x.cus = append(x.cus, cu)
			if !code {
				// Read when a reference reaches it: its pages are
				// given back till then (unitpages.go).
				if h, err := l.readUnitHeader(uint64(cu.off)); err == nil {
					l.giveBackUnit(cu, h.end)
				}
				continue
			}
			for _, rg := range cu.codeRanges(x) {
				ivs = append(ivs, interval{lo: rg[0], hi: rg[1], idx: idx})
			}
		}
		x.byPC = newIntervalIndex(ivs)
		l.unlisted.x = x
	})
	return l.unlisted.x
}

// keepForWalk makes the streams keep what they inflate from now on: the
// walk reads every unit and line program header (the programs between
// the headers are another lookup's, and inflating them again would cost
// more than keeping them), and every abbreviation table.
func (l *lazyDWARF) keepForWalk() {
	l.info.keep()
	l.line.keep()
	l.abbrev.keep()
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

// noCode reports whether the unit has neither address ranges nor a line
// program with rows: LTO's early-debug units, whose line programs are a
// header and a file table. Their headers are read, not their file tables
// (hundreds of files each).
func (l *lazyDWARF) noCode(top unitTop) bool {
	if top.ranged {
		return false
	}
	off := top.stmtList
	if !top.hasStmt {
		return true
	}
	size := uint64(len(l.line.buf))
	if off < 0 || uint64(off) >= size {
		return false // debug/dwarf reports the bad offset
	}
	start := uint64(off)
	line, err := l.line.ensure(start, min(start+lineHeaderPrefix, size))
	if err != nil {
		return false
	}
	return emptyLineProgram(line[start:min(start+lineHeaderPrefix, size)], l.order)
}

// lineHeaderPrefix is as much of a line program header as
// emptyLineProgram reads: unit_length, version, address and segment
// selector sizes and header_length of 64-bit DWARF 5.
const lineHeaderPrefix = 12 + 2 + 2 + 8

// emptyLineProgram reports whether the line program starting b (at
// least its first lineHeaderPrefix bytes, or all of the section there
// is) has no opcodes after its header: then it has no rows. Anything it
// cannot read counts as not empty, for the line reader to judge.
func emptyLineProgram(b []byte, order binary.ByteOrder) bool {
	if len(b) < 4 {
		return false
	}
	length, p, offSize := uint64(order.Uint32(b)), uint64(4), uint64(4)
	if length == 0xffffffff {
		if len(b) < 12 {
			return false
		}
		length, p, offSize = order.Uint64(b[4:]), 12, 8
	} else if length >= 0xfffffff0 {
		return false
	}
	end := p + length
	if end < p || uint64(len(b)) < p+2 {
		return false
	}
	version := order.Uint16(b[p:])
	p += 2
	if version < 2 || version > 5 {
		return false
	}
	if version >= 5 {
		p += 2 // address_size, segment_selector_size
	}
	if uint64(len(b)) < p+offSize {
		return false
	}
	var headerLen uint64
	if offSize == 8 {
		headerLen = order.Uint64(b[p:])
	} else {
		headerLen = uint64(order.Uint32(b[p:]))
	}
	p += offSize
	body := p + headerLen
	return body >= p && body == end
}

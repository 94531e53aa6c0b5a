package elfx

import (
	"debug/dwarf"
	"encoding/binary"
)

// The address ranges of a DIE with DW_AT_ranges (GCC's inlined calls and
// split functions at -O2). dwarf.Data.Ranges decodes the unit's top DIE
// again on every call to find the base address, with every attribute and
// string of it: a scope walk asks for thousands of DIEs' ranges (gen-lto:
// 5% of its report's CPU, 2.4 MB of its allocations). The unit's top DIE
// is read once when it is opened: the lists are decoded here from its
// base, as debug/dwarf decodes them, and anything else (indexed
// addresses, DW_FORM_rnglistx, a list it would fail on) is left to
// debug/dwarf.

// DWARF 5 range list entries (section 7.25).
const (
	rleEndOfList    = 0x00
	rleOffsetPair   = 0x04
	rleBaseAddress  = 0x05
	rleStartEnd     = 0x06
	rleStartLength  = 0x07
	dwarf5RangesMin = 5
)

// ranges gives the address ranges of e, a DIE of the unit, as
// dwarf.Data.Ranges does.
func (cu *cuIndex) ranges(e *dwarf.Entry) ([][2]uint64, error) {
	if r, ok := cu.rangeList(e); ok {
		return r, nil
	}
	return cu.d.Ranges(e)
}

// rangeList decodes e's DW_AT_ranges; ok is false where debug/dwarf
// must: not a lazy unit's DIE with DW_AT_ranges alone (no DW_AT_low_pc
// or DW_AT_high_pc), a form or entry decoded here otherwise than by
// debug/dwarf, or a list it would fail on.
func (cu *cuIndex) rangeList(e *dwarf.Entry) ([][2]uint64, bool) {
	if cu.lazy == nil || cu.global || cu.abbrevEnd == 0 || e.Tag == dwarf.TagCompileUnit ||
		e.AttrField(dwarf.AttrLowpc) != nil || e.AttrField(dwarf.AttrHighpc) != nil {
		return nil, false
	}
	f := e.AttrField(dwarf.AttrRanges)
	if f == nil {
		return nil, false
	}
	off, ok := f.Val.(int64)
	if !ok || off < 0 {
		return nil, false
	}
	return cu.rangeListAt(uint64(off), f.Class)
}

// rangeListAt decodes the list at off that a DW_AT_ranges of class
// class names, for rangeList (whose conditions on the DIE hold).
func (cu *cuIndex) rangeListAt(off uint64, class dwarf.Class) ([][2]uint64, bool) {
	h := cu.header
	// The sections as newDWARFData gave them to debug/dwarf.
	ranges, rngLists := cu.lazy.sec[3], cu.lazy.sec[8]
	switch {
	case h.version >= dwarf5RangesMin && len(rngLists) > 0 && class == dwarf.ClassRangeListPtr:
		return decodeRngList(rngLists, off, cu.rangesBase(), int(h.addrSize), cu.lazy.order)
	case h.version < dwarf5RangesMin && len(ranges) > 0:
		return decodeRanges(ranges, off, cu.rangesBase(), int(h.addrSize), cu.lazy.order)
	}
	return nil, false
}

// rangesBase is the base address of the unit's lists: its top DIE's
// DW_AT_entry_pc, else its DW_AT_low_pc, else 0 (debug/dwarf's
// baseAddressForEntry).
func (cu *cuIndex) rangesBase() uint64 {
	if v, ok := cu.entry.Val(dwarf.AttrEntrypc).(uint64); ok {
		return v
	}
	v, _ := cu.entry.Val(dwarf.AttrLowpc).(uint64)
	return v
}

// rangeReader reads the values of a list.
type rangeReader struct {
	b        []byte
	addrSize int
	order    binary.ByteOrder
	ok       bool // nothing ran past the section
}

func (r *rangeReader) addr() uint64 {
	if len(r.b) < r.addrSize {
		r.ok = false
		return 0
	}
	var v uint64
	if r.addrSize == 8 {
		v = r.order.Uint64(r.b)
	} else {
		v = uint64(r.order.Uint32(r.b))
	}
	r.b = r.b[r.addrSize:]
	return v
}

func (r *rangeReader) uleb() uint64 {
	v, n := readULEB(r.b)
	if n == 0 {
		r.ok = false
		return 0
	}
	r.b = r.b[n:]
	return v
}

// decodeRngList decodes the DWARF 5 range list at off of
// .debug_rnglists from base. ok is false for an entry of indexed
// addresses or one debug/dwarf skips, a list that runs past the
// section, or an address size other than 4 or 8.
func decodeRngList(sec []byte, off, base uint64, addrSize int, order binary.ByteOrder) (out [][2]uint64, ok bool) {
	if off > uint64(len(sec)) || (addrSize != 4 && addrSize != 8) {
		return nil, false
	}
	r := &rangeReader{b: sec[off:], addrSize: addrSize, order: order, ok: true}
	for r.ok {
		if len(r.b) == 0 {
			return nil, false
		}
		op := r.b[0]
		r.b = r.b[1:]
		switch op {
		case rleEndOfList:
			return out, true
		case rleOffsetPair:
			lo := r.uleb()
			hi := r.uleb()
			out = append(out, [2]uint64{base + lo, base + hi})
		case rleBaseAddress:
			base = r.addr()
		case rleStartEnd:
			lo := r.addr()
			hi := r.addr()
			out = append(out, [2]uint64{lo, hi})
		case rleStartLength:
			lo := r.addr()
			n := r.uleb()
			out = append(out, [2]uint64{lo, lo + n})
		default:
			return nil, false
		}
	}
	return nil, false
}

// decodeRanges decodes the DWARF 2 to 4 range list at off of
// .debug_ranges from base, as decodeRngList does.
func decodeRanges(sec []byte, off, base uint64, addrSize int, order binary.ByteOrder) (out [][2]uint64, ok bool) {
	if off > uint64(len(sec)) || (addrSize != 4 && addrSize != 8) {
		return nil, false
	}
	r := &rangeReader{b: sec[off:], addrSize: addrSize, order: order, ok: true}
	baseMark := ^uint64(0) >> uint((8-addrSize)*8)
	for len(r.b) > 0 {
		lo := r.addr()
		hi := r.addr()
		if !r.ok {
			return nil, false
		}
		if lo == 0 && hi == 0 {
			break
		}
		if lo == baseMark {
			base = hi
		} else {
			out = append(out, [2]uint64{base + lo, base + hi})
		}
	}
	return out, true
}

package elfx

import (
	"cmp"
	"debug/dwarf"
	"fmt"
	"slices"
	"sort"
)

// References between units. LTO's units name the abstract functions of
// the early-debug units with DW_FORM_ref_addr, dwz's name the DIEs it
// moved into partial units the same way: a section offset, which the
// lazy index reads as a constant (see openUnit) and follows here to the
// unit holding it, found by offset and read on its own. Only the units on
// the way are read, never the whole section.

// unitSpan is where a unit lies in .debug_info.
type unitSpan struct{ start, end uint64 }

// unitAt returns the unit that holds section offset off of .debug_info,
// opened. Units are found by walking unit headers from the nearest unit
// start known below off (a unit .debug_aranges lists, or one met
// before), inflating .debug_info no further than off's unit.
func (l *lazyDWARF) unitAt(off uint64) (*cuIndex, error) {
	cu, err := l.findUnit(off)
	if err != nil {
		return nil, err
	}
	if err := cu.open(); err != nil {
		return nil, err
	}
	return cu, nil
}

func (l *lazyDWARF) findUnit(off uint64) (*cuIndex, error) {
	l.unitsMu.Lock()
	defer l.unitsMu.Unlock()
	i := sort.Search(len(l.spans), func(i int) bool { return l.spans[i].start > off }) - 1
	if i >= 0 && off < l.spans[i].end {
		return l.unitStartingAt(l.spans[i].start), nil
	}
	from := uint64(0)
	if i >= 0 {
		from = l.spans[i].end
	}
	if j := sort.Search(len(l.listedStarts), func(j int) bool { return l.listedStarts[j] > off }) - 1; j >= 0 {
		from = max(from, l.listedStarts[j])
	}
	for from <= off {
		h, err := l.readUnitHeader(from)
		if err != nil {
			return nil, fmt.Errorf("finding the unit of DIE %#x: %w", off, err)
		}
		l.addSpan(unitSpan{from, h.end})
		if off < h.end {
			return l.unitStartingAt(from), nil
		}
		from = h.end
	}
	return nil, fmt.Errorf("DIE %#x is in no unit", off)
}

// unitStartingAt is the unit whose header is at off, made on first use;
// l.unitsMu is held.
func (l *lazyDWARF) unitStartingAt(off uint64) *cuIndex {
	cu := l.units[off]
	if cu == nil {
		cu = &cuIndex{off: dwarf.Offset(off), lazy: l, alt: l.alt}
		l.units[off] = cu
	}
	return cu
}

// addSpan records a unit's extent, keeping l.spans sorted by start.
func (l *lazyDWARF) addSpan(s unitSpan) {
	i, found := slices.BinarySearchFunc(l.spans, s.start, func(a unitSpan, start uint64) int {
		return cmp.Compare(a.start, start)
	})
	if !found {
		l.spans = slices.Insert(l.spans, i, s)
	}
}

// open reads the unit's top DIE once (a lazy unit's first use).
func (cu *cuIndex) open() error {
	cu.openOnce.Do(func() {
		// Set first: the unit's pages stay from now on (unitpages.go).
		cu.opened.Store(true)
		if cu.entry == nil {
			cu.openErr = cu.lazy.openUnit(cu)
		}
	})
	return cu.openErr
}

// ref resolves e's reference attribute a, e read from cu: the unit the
// DIE it names is in and its offset in that unit's dwarf.Data, which
// may be the supplementary file's (altlink.go).
func (cu *cuIndex) ref(e *dwarf.Entry, a dwarf.Attr) (*cuIndex, dwarf.Offset, bool) {
	f := e.AttrField(a)
	if f == nil {
		return nil, 0, false
	}
	switch v := f.Val.(type) {
	case dwarf.Offset:
		if f.Class != dwarf.ClassReference {
			return nil, 0, false
		}
		return cu, v, true
	case uint32: // DW_FORM_ref_sup4: into the supplementary file
		if f.Class != dwarf.ClassReference {
			return nil, 0, false
		}
		return cu.altRef(uint64(v))
	case uint64: // DW_FORM_ref_sup8
		if f.Class != dwarf.ClassReference {
			return nil, 0, false
		}
		return cu.altRef(v)
	case int64:
		if f.Class == dwarf.ClassReferenceAlt && v >= 0 { // DW_FORM_GNU_ref_alt
			return cu.altRef(uint64(v))
		}
		if !cu.refAddr || f.Class != dwarf.ClassConstant || v < 0 {
			return nil, 0, false
		}
		return cu.refAddrTarget(uint64(v))
	}
	return nil, 0, false
}

// refAddrTarget places the DW_FORM_ref_addr value v of a unit whose
// dwarf.Data reads them as constants (refAddr): the unit holding the
// section offset v, and v's offset in that unit's dwarf.Data.
func (cu *cuIndex) refAddrTarget(v uint64) (*cuIndex, dwarf.Offset, bool) {
	t, err := cu.lazy.unitAt(v)
	if err != nil || dwarf.Offset(v) < t.base {
		return nil, 0, false
	}
	return t, dwarf.Offset(v) - t.base, true
}

// origin is where e's attributes continue: its DW_AT_abstract_origin,
// else its DW_AT_specification.
func (cu *cuIndex) origin(e *dwarf.Entry) (*cuIndex, dwarf.Offset, bool) {
	if t, off, ok := cu.ref(e, dwarf.AttrAbstractOrigin); ok {
		return t, off, true
	}
	return cu.ref(e, dwarf.AttrSpecification)
}

// entryAt reads the DIE at off of the unit's dwarf.Data.
func (cu *cuIndex) entryAt(off dwarf.Offset) (*dwarf.Entry, error) {
	r := cu.d.Reader()
	r.Seek(off)
	return r.Next()
}

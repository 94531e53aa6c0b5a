package elfx

import (
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// A backtrace needs a handful of glibc's 4,000 compile units. Reading the
// DWARF through one dwarf.Data means inflating all of .debug_info and
// .debug_line and parsing every unit's abbreviation table first (what
// dwarf.New does). A lazy index instead maps addresses to units with
// .debug_aranges, then reads each unit a lookup reaches on its own: the
// section streams inflate only up to the end of that unit and of its line
// program, and a dwarf.Data over the unit alone parses its abbreviations
// only.
//
// A unit whose DIEs may refer into other units (DW_FORM_ref_addr: LTO,
// dwz) is read on its own too, its references followed to the units they
// name (dwarfref.go). An address .debug_aranges does not cover goes to
// the index over the units it leaves out (unlisted.go).

// lazyDWARF holds the sections of a lazily read object.
type lazyDWARF struct {
	name   string
	order  binary.ByteOrder
	info   *sectionStream
	line   *sectionStream
	abbrev *sectionStream
	sec    [][]byte // dwarfSections' contents, but for the three streamed
	// release gives back the pages of a part of the object's file
	// mapping (Object.release; nil for none): .debug_info, where it is
	// mapped, after reading units a report needs no more (unitpages.go).
	release func([]byte)
	pages   unitPages // the units read whose pages wait to be given back

	globalOnce sync.Once
	global     *dwarf.Data
	globalErr  error

	unlisted unlistedUnits // unlisted.go
	alt      *altDWARF     // the supplementary file (altlink.go), nil for none

	refAbbrevs refAbbrevs // the tables of units with DW_FORM_ref_addr (refabbrev.go)
	abbrevsMu  sync.Mutex
	abbrevs    map[[2]uint64]abbrevInfo // ensureAbbrevs' tables by offset and code wanted
	shapes     sharedShapes             // the eager DIE skippers' shapes (skipshapes.go)
	declShapes declShapes               // the origin readers' shapes (skipshapes.go)

	prefetch bool // inflate ahead of the lookups (prefetch.go)
	// early is the prefetch started for the first lookup batch when
	// the index was built, which that batch's preload ends.
	early atomic.Pointer[prefetcher]
	// prefetched counts the units and whole streams a prefetch read
	// ahead (tests).
	prefetched atomic.Int32

	listed     map[uint64]int32 // offsets of the units .debug_aranges lists
	listedOnce sync.Once
	allListed  bool

	// The units known by offset, for references between units
	// (dwarfref.go): the listed ones, sorted, and every unit met, with
	// the extents of those whose header was read.
	listedStarts []uint64
	unitsMu      sync.Mutex
	units        map[uint64]*cuIndex
	spans        []unitSpan
}

// newLazyDWARFIndex builds a lazy index over o's DWARF, or returns nil
// when o has no usable .debug_aranges (or is relocatable, or has
// .zdebug sections), for the eager index to take over.
func (o *Object) newLazyDWARFIndex() (*dwarfIndex, error) {
	return o.newLazyDWARFIndexFor(nil)
}

// newLazyDWARFIndexFor is newLazyDWARFIndex for a lookup batch at addrs
// (nil: none known): what their units need of the compressed streams
// starts inflating as soon as the index can say which units those are,
// beside the other sections' inflating (prefetch.go).
func (o *Object) newLazyDWARFIndexFor(addrs []uint64) (*dwarfIndex, error) {
	if o.ef.Type == elf.ET_REL || o.section(".zdebug_info") != nil || o.section(".debug_aranges") == nil {
		return nil, nil
	}
	ar, err := o.sectionsData([]string{".debug_aranges"})
	if err != nil {
		return nil, err
	}
	units, ok := parseAranges(ar[0], o.ef.ByteOrder)
	if !ok || len(units) == 0 {
		return nil, nil
	}
	l := &lazyDWARF{name: o.name, order: o.ef.ByteOrder, release: o.release, prefetch: !o.keepInflated.Load()}
	var rest []string
	for _, n := range dwarfSections {
		if !streamedSection(n) {
			rest = append(rest, n)
		}
	}
	var g mapfault.Group // the sections are mapped: see Warm
	var restData [][]byte
	var restErr error
	g.Go(func() { restData, restErr = o.sectionsData(rest) })
	l.info, err = o.newSectionStream(".debug_info")
	if err == nil {
		l.line, err = o.newSectionStream(".debug_line")
	}
	if err == nil {
		l.abbrev, err = o.newSectionStream(".debug_abbrev")
	}
	if err != nil {
		g.Wait()
		return nil, err
	}
	if o.keepInflated.Load() {
		l.info.keep()
		l.line.keep()
		l.abbrev.keep()
	}
	x := &dwarfIndex{name: o.name, lazy: l}
	// A listed unit's cuIndex is made when a lookup first reaches it
	// (dwarfIndex.unit): glibc lists 4,000 units, of which a report
	// reads a few dozen, and making them all (500 bytes each) was 2 MB
	// of fresh pages, a tenth of a libstdc++ report's page faults.
	byOff := make(map[uint64]int32, mostUnits(units))
	ivs := make([]interval, 0, len(units))
	for _, u := range units {
		if u.info >= uint64(len(l.info.buf)) {
			continue // points past .debug_info: corrupt
		}
		idx, ok := byOff[u.info]
		if !ok {
			idx = int32(len(x.listedOffs))
			byOff[u.info] = idx
			x.listedOffs = append(x.listedOffs, u.info)
		}
		ivs = append(ivs, interval{lo: u.lo, hi: u.hi, idx: idx})
	}
	if len(x.listedOffs) == 0 {
		g.Wait()
		return nil, nil
	}
	x.listedUnits = make([]atomic.Pointer[cuIndex], len(x.listedOffs))
	l.listed = byOff
	l.units = make(map[uint64]*cuIndex)
	l.listedStarts = slices.Sorted(slices.Values(x.listedOffs))
	x.byPC = newIntervalIndex(ivs)
	if addrs != nil && l.prefetch {
		l.early.Store(x.startPrefetch(addrs))
	}
	g.Wait()
	if restErr != nil {
		x.endEarlyPrefetch()
		return nil, restErr
	}
	l.sec = make([][]byte, len(dwarfSections))
	j := 0
	for i, n := range dwarfSections {
		if !streamedSection(n) {
			l.sec[i] = restData[j]
			j++
		}
	}
	return x, nil
}

// unmapInflated gives back what the streams inflated: the object is
// closed.
func (l *lazyDWARF) unmapInflated() {
	l.info.unmap()
	l.line.unmap()
	l.abbrev.unmap()
}

// streamedSection reports whether the lazy index inflates section name
// only as far as the units it reads need (the others are read whole).
func streamedSection(name string) bool {
	return name == ".debug_info" || name == ".debug_line" || name == ".debug_abbrev"
}

// arangeUnit is one address range of .debug_aranges and the offset of its
// unit in .debug_info.
type arangeUnit struct {
	info, lo, hi uint64
}

// parseAranges reads every set of .debug_aranges (DWARF 2 to 5). ok is
// false when a set is malformed: the caller then reads every unit.
func parseAranges(b []byte, order binary.ByteOrder) (out []arangeUnit, ok bool) {
	// Sized for the most 8-byte tuples b can hold: grown by append, the
	// 12,575 ranges of libstdc++'s debug build allocated 1.5 MB.
	out = make([]arangeUnit, 0, len(b)/16)
	for off := uint64(0); off < uint64(len(b)); {
		rest := b[off:]
		if len(rest) < 4 {
			return nil, false
		}
		length, hdr, is64 := uint64(order.Uint32(rest)), uint64(4), false
		if length == 0xffffffff {
			if len(rest) < 12 {
				return nil, false
			}
			length, hdr, is64 = order.Uint64(rest[4:]), 12, true
		} else if length >= 0xfffffff0 {
			return nil, false
		}
		if length > uint64(len(rest))-hdr {
			return nil, false
		}
		set := rest[:hdr+length]
		next := off + hdr + length
		p := hdr
		// version (2), debug_info_offset (4 or 8), address_size, segment_selector_size
		need := p + 2 + 4 + 2
		if is64 {
			need += 4
		}
		if uint64(len(set)) < need {
			return nil, false
		}
		if v := order.Uint16(set[p:]); v < 2 || v > 5 {
			return nil, false
		}
		p += 2
		var info uint64
		if is64 {
			info, p = order.Uint64(set[p:]), p+8
		} else {
			info, p = uint64(order.Uint32(set[p:])), p+4
		}
		asize, segSize := uint64(set[p]), uint64(set[p+1])
		p += 2
		if (asize != 4 && asize != 8) || segSize != 0 {
			return nil, false
		}
		// Tuples start at a multiple of twice the address size from the
		// start of the set.
		tuple := 2 * asize
		p = (p + tuple - 1) / tuple * tuple
		for ; p+tuple <= uint64(len(set)); p += tuple {
			var lo, n uint64
			if asize == 8 {
				lo, n = order.Uint64(set[p:]), order.Uint64(set[p+8:])
			} else {
				lo, n = uint64(order.Uint32(set[p:])), uint64(order.Uint32(set[p+4:]))
			}
			if lo == 0 && n == 0 {
				break
			}
			if lo+n > lo {
				out = append(out, arangeUnit{info: info, lo: lo, hi: lo + n})
			}
		}
		off = next
	}
	return out, true
}

// mostUnits bounds how many units units name (distinct offsets in
// .debug_info): a unit's ranges come in a run (its set), so each is
// first named where the offset changes.
func mostUnits(units []arangeUnit) int {
	n := 0
	for i, u := range units {
		if i == 0 || u.info != units[i-1].info {
			n++
		}
	}
	return n
}

// unitHeader is what the lazy index needs of a unit header.
type unitHeader struct {
	end       uint64 // where the unit ends in .debug_info
	abbrevOff uint64 // its abbreviation table in .debug_abbrev
	abbrevAt  uint64 // where that offset is stored in .debug_info
	die       uint64 // its first DIE
	version   uint16
	is64      bool  // 64-bit DWARF
	addrSize  uint8 // 0 where the header has none (DWARF 5 type units keep it)
}

// refAddrSize is how many bytes a DW_FORM_ref_addr value takes in the
// unit: the address size in DWARF 2, the offset size after.
func (h unitHeader) refAddrSize() int {
	switch {
	case h.version == 2:
		return int(h.addrSize)
	case h.is64:
		return 8
	}
	return 4
}

// readUnitHeader reads the unit header at off in .debug_info (inflating
// the section as far as the unit's end).
func (l *lazyDWARF) readUnitHeader(off uint64) (h unitHeader, err error) {
	size := uint64(len(l.info.buf))
	info, err := l.info.ensure(off, min(off+24, size))
	if err != nil {
		return h, err
	}
	if off+4 > size {
		return h, fmt.Errorf("unit header past the end of .debug_info")
	}
	length, hdr, is64 := uint64(l.order.Uint32(info[off:])), uint64(4), false
	if length == 0xffffffff {
		if off+12 > size {
			return h, fmt.Errorf("unit header past the end of .debug_info")
		}
		length, hdr, is64 = l.order.Uint64(info[off+4:]), 12, true
	} else if length >= 0xfffffff0 {
		return h, fmt.Errorf("reserved unit length %#x", length)
	}
	if length > size-off-hdr {
		return h, fmt.Errorf("unit length %#x runs past the end of .debug_info", length)
	}
	h.end, h.is64 = off+hdr+length, is64
	if info, err = l.info.ensure(off, h.end); err != nil {
		return h, err
	}
	p := off + hdr
	if p+2 > h.end {
		return h, fmt.Errorf("unit header truncated")
	}
	h.version = l.order.Uint16(info[p:])
	p += 2
	unitType := byte(0)
	if h.version >= 5 {
		if p+2 > h.end {
			return h, fmt.Errorf("unit header truncated")
		}
		unitType, h.addrSize = info[p], info[p+1]
		p += 2 // unit_type, address_size
	}
	offSize := uint64(4)
	if is64 {
		offSize = 8
	}
	if p+offSize > h.end {
		return h, fmt.Errorf("unit header truncated")
	}
	h.abbrevAt = p
	if is64 {
		h.abbrevOff = l.order.Uint64(info[p:])
	} else {
		h.abbrevOff = uint64(l.order.Uint32(info[p:]))
	}
	p += offSize
	switch {
	case h.version < 5:
		if p < h.end {
			h.addrSize = info[p]
		}
		p++ // address_size
	case unitType == dwUTSkeleton || unitType == dwUTSplitCompile:
		p += 8 // dwo_id
	case unitType == dwUTType || unitType == dwUTSplitType:
		p += 8 + offSize // type_signature, type_offset
	}
	if p > h.end {
		return h, fmt.Errorf("unit header truncated")
	}
	h.die = p
	return h, nil
}

// openUnit reads the unit's top DIE through a dwarf.Data of its own. A
// unit whose DIEs refer into other units with DW_FORM_ref_addr (LTO,
// dwz) gets one too, over a copy of the unit and of its abbreviation
// table in which those forms read as DW_FORM_data4 or data8 of the same
// size: debug/dwarf then gives their values as the plain section offsets
// they are (refAddr), which resolveRef follows into the unit holding
// them. References into a supplementary file need no rewriting
// (altlink.go); a form that cannot be rewritten so (DW_FORM_indirect)
// takes the dwarf.Data over the whole section.
func (l *lazyDWARF) openUnit(cu *cuIndex) error {
	off := uint64(cu.off)
	h, err := l.readUnitHeader(off)
	if err != nil {
		return err
	}
	d := (*dwarf.Data)(nil)
	base := cu.off
	code, _ := l.topCode(h)
	t, err := l.ensureAbbrevs(h.abbrevOff, code)
	if err != nil {
		return err
	}
	switch {
	case t.ok && len(t.refAddr) == 0:
		sec := append([][]byte(nil), l.sec...)
		sec[0] = l.abbrev.buf
		sec[1] = l.info.buf[off:h.end:h.end]
		sec[2] = l.line.buf
		if d, err = newDWARFData(l.name, sec, false); err != nil {
			return err
		}
	case t.ok:
		if d, err = l.refAddrUnitData(off, h, t); err != nil {
			return err
		}
		cu.refAddr = true
	default:
		// Units refer into each other: the streams keep everything from
		// now on (what they gave back is inflated again once).
		l.info.keep()
		l.line.keep()
		if d, err = l.globalData(); err != nil {
			return err
		}
		base = 0
		cu.global = true
	}
	// Seek(0) is the first unit's first DIE; any other offset must be a
	// DIE's, not the unit header's.
	r := d.Reader()
	if base == 0 {
		r.Seek(dwarf.Offset(h.die))
	}
	e, err := r.Next()
	if err != nil {
		return err
	}
	if e == nil {
		return fmt.Errorf("no unit entry")
	}
	cu.d, cu.base, cu.entry = d, base, e
	if t.parsed {
		cu.header, cu.abbrevEnd = h, t.end
	}
	return nil
}

// newSkipper makes the skipper of an opened unit's DIEs (dieskip.go),
// or nil for debug/dwarf to read them all: when a walk needs it, not
// when the unit is opened (LTO's early-debug units are opened by the
// hundred, for the DIEs other units refer to, and never walked). lazy
// makes newLazyDIESkipper's, for one goroutine's walk past few kinds of
// DIE.
func (l *lazyDWARF) newSkipper(cu *cuIndex, lazy bool) *dieSkipper {
	h := cu.header
	if cu.abbrevEnd == 0 {
		return nil
	}
	abbrev, err := l.abbrev.ensure(h.abbrevOff, cu.abbrevEnd) // inflated when opened: kept since
	if err != nil {
		return nil
	}
	var s *dieSkipper
	if lazy {
		s, _ = newLazyDIESkipper(l.info.buf, abbrev[h.abbrevOff:cu.abbrevEnd], h, l.order)
	} else {
		s = l.shapes.skipper(l.info.buf, abbrev, h.abbrevOff, cu.abbrevEnd, h, l.order)
	}
	if s != nil {
		s.unit, s.unitKnown = uint64(cu.off), true
	}
	return s
}

// refAddrUnitData is a dwarf.Data over the unit at off whose
// abbreviation table t reads DW_FORM_ref_addr as data of the same size:
// the table rewritten in the index's shared copy (refabbrev.go), or,
// where that cannot hold it, copied to offset 0 with the unit (its
// header pointing there).
func (l *lazyDWARF) refAddrUnitData(off uint64, h unitHeader, t abbrevInfo) (*dwarf.Data, error) {
	form, err := refAddrForm(h)
	if err != nil {
		return nil, err
	}
	sec := append([][]byte(nil), l.sec...)
	sec[2] = l.line.buf
	if abbrev, ok := l.refAbbrevs.section(l.abbrev, h.abbrevOff, t, form); ok {
		sec[0], sec[1] = abbrev, l.info.buf[off:h.end:h.end]
		return newDWARFData(l.name, sec, false)
	}
	abbrev := slices.Clone(l.abbrev.buf[h.abbrevOff:t.end])
	for _, p := range t.refAddr {
		abbrev[p-h.abbrevOff] = form
	}
	info := slices.Clone(l.info.buf[off:h.end])
	at := info[h.abbrevAt-off:]
	if h.is64 {
		l.order.PutUint64(at, 0)
	} else {
		l.order.PutUint32(at, 0)
	}
	sec[0], sec[1] = abbrev, info
	return newDWARFData(l.name, sec, false)
}

// ensureAbbrevs inflates .debug_abbrev over the abbreviation table at off
// and parses it, finding the declaration of code want (0: none). Where
// it ends is known only once it is parsed: the window read doubles
// until it holds the table, or the rest of the section.
//
// A table is parsed once for each code wanted: the unlisted walk reads
// a unit's top DIE by it (unittop.go), and opening the unit later (LTO's
// early-debug units, for the names their DIEs hold) wants the same.
func (l *lazyDWARF) ensureAbbrevs(off, want uint64) (abbrevInfo, error) {
	size := uint64(len(l.abbrev.buf))
	if off >= size {
		return abbrevInfo{}, nil
	}
	key := [2]uint64{off, want}
	l.abbrevsMu.Lock()
	t, ok := l.abbrevs[key]
	l.abbrevsMu.Unlock()
	if ok {
		// Inflated again where the stream gave its pages back.
		end := size
		if t.parsed {
			end = t.end
		}
		_, err := l.abbrev.ensure(off, end)
		return t, err
	}
	for n := uint64(4 << 10); ; n *= 2 {
		end := min(size, off+n)
		abbrev, err := l.abbrev.ensure(off, end)
		if err != nil {
			return abbrevInfo{}, err
		}
		if t := abbrevTableFinding(abbrev[:end], off, want); t.parsed || end == size {
			l.abbrevsMu.Lock()
			if l.abbrevs == nil {
				l.abbrevs = map[[2]uint64]abbrevInfo{}
			}
			l.abbrevs[key] = t
			l.abbrevsMu.Unlock()
			return t, nil
		}
	}
}

// topCode is the abbreviation code of the top DIE of the unit of header
// h (read: its unit is inflated) and where its attributes start; code
// 0 where it cannot be read.
func (l *lazyDWARF) topCode(h unitHeader) (code, attrs uint64) {
	code, n := readULEB(l.info.buf[h.die:h.end])
	return code, h.die + uint64(n)
}

// ensureLines inflates .debug_line up to the end of the unit's line
// program.
func (l *lazyDWARF) ensureLines(e *dwarf.Entry) error {
	off, ok := e.Val(dwarf.AttrStmtList).(int64)
	if !ok {
		return nil
	}
	return l.ensureLinesAt(off)
}

// ensureLinesAt inflates .debug_line up to the end of the line program
// at off.
func (l *lazyDWARF) ensureLinesAt(off int64) error {
	if off < 0 {
		return nil
	}
	size := uint64(len(l.line.buf))
	start := uint64(off)
	if start+4 > size {
		return nil // debug/dwarf reports the bad offset
	}
	line, err := l.line.ensure(start, min(start+12, size))
	if err != nil {
		return err
	}
	length, hdr := uint64(l.order.Uint32(line[start:])), uint64(4)
	if length == 0xffffffff && start+12 <= size {
		length, hdr = l.order.Uint64(line[start+4:]), 12
	}
	end := min(size, start+hdr+min(length, size))
	_, err = l.line.ensure(start, end)
	return err
}

// globalData is a dwarf.Data over the whole of every section.
func (l *lazyDWARF) globalData() (*dwarf.Data, error) {
	l.globalOnce.Do(func() {
		info, err := l.info.all()
		if err != nil {
			l.globalErr = fmt.Errorf("elfx: %s: %w", l.name, err)
			return
		}
		line, err := l.line.all()
		if err != nil {
			l.globalErr = fmt.Errorf("elfx: %s: %w", l.name, err)
			return
		}
		abbrev, err := l.abbrev.all()
		if err != nil {
			l.globalErr = fmt.Errorf("elfx: %s: %w", l.name, err)
			return
		}
		sec := append([][]byte(nil), l.sec...)
		sec[0], sec[1], sec[2] = abbrev, info, line
		l.global, l.globalErr = newDWARFData(l.name, sec, true)
	})
	return l.global, l.globalErr
}

// preload reads, in section order, the units that cover addrs: the
// streams then inflate each section once, from its start to the last
// unit needed, keeping only what those units need. The prefetch the
// index started for addrs when it was built goes on beside it, or one
// starts now.
func (x *dwarfIndex) preload(addrs []uint64) {
	p := x.lazy.early.Swap(nil)
	if p == nil {
		p = x.startPrefetch(addrs)
	}
	defer p.wait()
	cus, walk := x.unitsAt(addrs)
	if walk {
		// First, in section order: reading the units after it
		// inflates nothing again.
		x.lazy.unlistedIndex()
	}
	for _, cu := range cus {
		cu.load(x)
	}
}

// unitsAt returns the listed units that cover addrs in section order,
// and whether an address lies outside them all where the unlisted walk
// must look for its unit.
func (x *dwarfIndex) unitsAt(addrs []uint64) (cus []*cuIndex, walk bool) {
	seen := map[int32]bool{}
	for _, a := range addrs {
		if !walk && !x.byPC.covers(a) && !x.lazy.everyUnitListed() {
			walk = true
		}
		x.byPC.each(a, func(i int32) bool {
			if !seen[i] {
				seen[i] = true
				cus = append(cus, x.unit(i))
			}
			return true
		})
	}
	slices.SortFunc(cus, func(a, b *cuIndex) int { return cmp.Compare(a.off, b.off) })
	return cus, walk
}

// everyUnitListed reports whether .debug_aranges lists every unit of
// .debug_info: then an address it does not cover is in no unit, as gdb
// takes it, and the eager index over every unit is not built for it
// (node: every V8 frame, in code without DWARF). Known only where
// .debug_info is there whole: walking a compressed one's unit headers
// inflates it all (unlistedIndex does, once an address needs it).
func (l *lazyDWARF) everyUnitListed() bool {
	l.listedOnce.Do(func() {
		if l.info.raw != nil {
			return
		}
		info := l.info.buf
		for off := uint64(0); off < uint64(len(info)); {
			if _, ok := l.listed[off]; !ok || off+4 > uint64(len(info)) {
				return
			}
			length, hdr := uint64(l.order.Uint32(info[off:])), uint64(4)
			if length == 0xffffffff {
				if off+12 > uint64(len(info)) {
					return
				}
				length, hdr = l.order.Uint64(info[off+4:]), 12
			} else if length >= 0xfffffff0 {
				return
			}
			if length > uint64(len(info))-off-hdr {
				return
			}
			off += hdr + length
		}
		l.allListed = true
	})
	return l.allListed
}

// DWARF 5 unit types with more header after the abbreviation offset.
const (
	dwUTType         = 0x02
	dwUTSkeleton     = 0x04
	dwUTSplitCompile = 0x05
	dwUTSplitType    = 0x06
)

// DWARF forms that refer outside the unit holding them, and the forms
// of the same sizes DW_FORM_ref_addr is read as. References into a
// supplementary file (DW_FORM_GNU_ref_alt, DW_FORM_ref_sup4/8) need no
// rewriting: debug/dwarf gives them as offsets (altlink.go).
const (
	formData4    = 0x06
	formData8    = 0x07
	formRefAddr  = 0x10
	formIndirect = 0x16 // the form comes with each value: could be any
)

// abbrevInfo is what the lazy index needs of an abbreviation table.
type abbrevInfo struct {
	end uint64 // where the table ends in .debug_abbrev
	// refAddr holds where each DW_FORM_ref_addr of the table is (one
	// byte each) in .debug_abbrev.
	refAddr []uint64
	// parsed: the table was read to its end; ok: and it has no form
	// that refers outside the unit but DW_FORM_ref_addr and references
	// into a supplementary file.
	parsed, ok bool
	// declAt is where the declaration debug/dwarf takes for the code
	// the table was parsed to find is in .debug_abbrev, plus one (0 for
	// none): the last of that code, truncated to 32 bits as it does.
	// readUnitTop reads a top DIE so, without a pass of its own.
	declAt uint64
	// decls holds where the declaration of each code is, from the
	// table's start, plus one (0 for none), where every code is below
	// smallCodes and declared once: an origin reader's skipper
	// (originreader.go) makes its shapes from them; nil otherwise.
	decls []uint32
}

// selfContained reports whether the abbreviation table at off in
// .debug_abbrev uses no form that refers outside the unit. Anything it
// cannot parse counts as not self-contained.
func selfContained(abbrev []byte, off uint64) bool {
	t := abbrevTable(abbrev, off)
	return t.ok && len(t.refAddr) == 0
}

// abbrevTable parses the abbreviation table at off.
func abbrevTable(abbrev []byte, off uint64) abbrevInfo {
	return abbrevTableFinding(abbrev, off, 0)
}

// abbrevTableFinding parses the abbreviation table at off, finding
// where the declaration of code want is (abbrevInfo.declAt; want 0:
// none).
func abbrevTableFinding(abbrev []byte, off, want uint64) abbrevInfo {
	var t abbrevInfo
	if off >= uint64(len(abbrev)) {
		return t
	}
	other := false   // a form refers outside the unit otherwise than by DW_FORM_ref_addr
	declared := true // t.decls holds every declaration
	b := abbrev[off:]
	uleb := func() (uint64, bool) {
		var v uint64
		for shift := uint(0); len(b) > 0 && shift < 64; shift += 7 {
			c := b[0]
			b = b[1:]
			v |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	for {
		decl := uint64(len(abbrev) - len(b))
		code, ok := uleb()
		if !ok {
			return abbrevInfo{}
		}
		if code == 0 {
			t.end, t.parsed = uint64(len(abbrev)-len(b)), true
			t.ok = !other
			if !declared {
				t.decls = nil
			}
			return t
		}
		if want != 0 && uint32(code) == uint32(want) {
			t.declAt = decl + 1
		}
		switch {
		case !declared:
		case code >= smallCodes || decl-off >= math.MaxUint32:
			declared = false
		case code < uint64(len(t.decls)) && t.decls[code] != 0:
			declared = false // which one a reader takes is its own
		default:
			if code >= uint64(len(t.decls)) {
				t.decls = append(t.decls, make([]uint32, code+1-uint64(len(t.decls)))...)
			}
			t.decls[code] = uint32(decl-off) + 1
		}
		if _, ok := uleb(); !ok { // tag
			return abbrevInfo{}
		}
		if len(b) == 0 {
			return abbrevInfo{}
		}
		b = b[1:] // has children
		for {
			attr, ok1 := uleb()
			at := uint64(len(abbrev) - len(b))
			form, ok2 := uleb()
			if !ok1 || !ok2 {
				return abbrevInfo{}
			}
			if attr == 0 && form == 0 {
				break
			}
			switch form {
			case formRefAddr:
				if uint64(len(abbrev)-len(b)) != at+1 {
					return abbrevInfo{} // padded LEB128: cannot be rewritten in place
				}
				t.refAddr = append(t.refAddr, at)
			case formIndirect:
				other = true
			case 0x21: // DW_FORM_implicit_const: a signed LEB128 follows
				if _, ok := uleb(); !ok {
					return abbrevInfo{}
				}
			}
		}
	}
}

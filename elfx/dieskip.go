package elfx

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Skipping DIEs by their abbreviations. debug/dwarf's Reader decodes
// every attribute of every DIE it passes, and SkipChildren reads the
// children one by one unless the compiler gave DW_AT_sibling, which
// rustc never does. A unit's first walk wants a few kinds of DIE (the
// subprograms and the scopes around them: scopetree.go) among a great
// many it passes: in a Rust unit every function lives in modules beside
// every type's members, and every subprogram's children were decoded
// to be skipped. A dieSkipper steps over a DIE by its abbreviation's
// forms, reading only the sizes, as elfutils' and delve's readers do.

// dieSkipper reads the sizes of one unit's DIEs.
type dieSkipper struct {
	info []byte // .debug_info, indexed by section offset
	end  uint64 // the unit's end in it
	// unit is the unit's offset, which DW_AT_sibling's references are
	// relative to, where unitKnown (else no sibling is followed).
	unit      uint64
	unitKnown bool
	order     binary.ByteOrder
	// The version and sizes the unit's header sets.
	version                        uint16
	addrSize, offSize, refAddrSize int
	// The shapes by abbreviation code: codes are mostly small and dense.
	small []*dieShape
	large map[uint64]*dieShape
	// A lazy skipper's (newLazyDIESkipper) abbreviation table, and
	// where in it the declaration of each code below len(decls) is,
	// plus one (0 for none): shapes not made yet.
	abbrev []byte
	decls  []uint32
	made   shapeSlabs // the shapes made since
	// byDecl, where set, holds the shapes of lazy skippers of other
	// units by their declarations (skipshapes.go).
	byDecl *declShapes
}

// smallCodes bounds the codes dieSkipper.small holds.
const smallCodes = 1 << 12

// dieShape is what skipping a DIE needs of its abbreviation.
type dieShape struct {
	tag      dwarf.Tag
	children bool
	// fixed is the size of the attributes when every form has one,
	// else -1.
	fixed int
	attrs []dwarf.Attr
	forms []uint64
	// sibling: one of attrs is DW_AT_sibling (GCC's, on DIEs with
	// children), which skipping the children follows.
	sibling bool
}

// errDIESkip says a DIE runs past its unit or names no abbreviation.
var errDIESkip = errors.New("malformed DIE")

// DWARF forms by their encodings (DWARF 5 section 7.5.6, and the GNU
// extensions debug/dwarf reads).
const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx4        = 0x2c
	formGNUAddrIndex  = 0x1f01
	formGNUStrIndex   = 0x1f02
	formGNURefAlt     = 0x1f20
	formGNUStrpAlt    = 0x1f21
)

// formSize is the size of a value of form f in the unit, or -1 for a
// form whose values carry their sizes (LEB128 numbers, strings, blocks,
// DW_FORM_indirect). ok is false for a form it does not know.
func (s *dieSkipper) formSize(f uint64) (size int, ok bool) {
	switch {
	case f == formAddr:
		return s.addrSize, true
	case f == formData1, f == formRef1, f == formFlag, f == formStrx1, f == formAddrx1:
		return 1, true
	case f == formData2, f == formRef2:
		return 2, true
	case f == formData4, f == formRef4, f == formRefSup4:
		return 4, true
	case f == formData8, f == formRef8, f == formRefSig8, f == formRefSup8:
		return 8, true
	case f == formData16:
		return 16, true
	case f > formStrx1 && f <= formStrx4: // strx2, strx3, strx4
		return int(f-formStrx1) + 1, true
	case f > formAddrx1 && f <= formAddrx4:
		return int(f-formAddrx1) + 1, true
	case f == formStrp, f == formSecOffset, f == formStrpSup, f == formLineStrp,
		f == formGNURefAlt, f == formGNUStrpAlt:
		return s.offSize, true
	case f == formRefAddr:
		return s.refAddrSize, true
	case f == formFlagPresent, f == formImplicitConst:
		return 0, true
	case f == formSdata, f == formUdata, f == formRefUdata, f == formStrx, f == formAddrx,
		f == formLoclistx, f == formRnglistx, f == formGNUAddrIndex, f == formGNUStrIndex,
		f == formString, f == formBlock, f == formBlock1, f == formBlock2, f == formBlock4,
		f == formExprloc, f == formIndirect:
		return -1, true
	}
	return 0, false
}

// newDIESkipper reads the abbreviation table at the start of abbrev for
// the unit of header h in info. It fails on a form it does not know: the
// unit is then read with debug/dwarf alone. The shapes, their attributes
// and forms are cut from three arrays sized by a first pass over the
// table (abbrevCounts): made one by one, their allocations were most of
// the skippers' cost in gen-lto's report.
func newDIESkipper(info, abbrev []byte, h unitHeader, order binary.ByteOrder) (*dieSkipper, error) {
	s, err := unitSkipper(info, h, order)
	if err != nil {
		return nil, err
	}
	n := abbrevCounts(abbrev)
	slabs := &shapeSlabs{
		shapes: make([]dieShape, 0, n.shapes),
		attrs:  make([]dwarf.Attr, 0, n.specs),
		forms:  make([]uint64, 0, n.specs),
		sized:  true,
	}
	s.small = make([]*dieShape, n.smallCodes)
	for p := uint64(0); ; {
		code, sh, next, err := s.readDecl(abbrev, p, slabs)
		if err != nil || code == 0 {
			return s.orNil(err)
		}
		s.setShape(code, sh) // a code declared twice: the last, as debug/dwarf
		p = next
	}
}

// newLazyDIESkipper is newDIESkipper for a walk that meets few of the
// table's abbreviations (pathQualifier's path to one DIE): the table is
// checked whole as newDIESkipper does, but each shape is made when a
// DIE first uses it. gen-lto's report makes one for each of 330
// early-debug units of ~200 abbreviations, to read a dozen DIEs in each
// (the eager shapes: 8 of its 41 MB allocated). The skipper changes as
// it reads: it serves one goroutine.
func newLazyDIESkipper(info, abbrev []byte, h unitHeader, order binary.ByteOrder) (*dieSkipper, error) {
	s, err := unitSkipper(info, h, order)
	if err != nil {
		return nil, err
	}
	s.abbrev = abbrev
	for p := uint64(0); ; {
		code, _, next, err := s.readDecl(abbrev, p, nil) // checked only
		if err != nil {
			return nil, err
		}
		if code == 0 {
			s.small = make([]*dieShape, len(s.decls))
			return s, nil
		}
		switch {
		case code < smallCodes:
			if code >= uint64(len(s.decls)) {
				s.decls = append(s.decls, make([]uint32, max(code+1, 2*uint64(len(s.decls)))-uint64(len(s.decls)))...)
			}
			s.decls[code] = 0 // past 4 GiB: refused when a DIE uses it
			if p < math.MaxUint32 {
				s.decls[code] = uint32(p + 1) // a code declared twice: the last, as debug/dwarf
			}
		default: // rare: made now
			_, sh, _, _ := s.readDecl(abbrev, p, &s.made)
			s.setShape(code, sh)
		}
		p = next
	}
}

// newDeclaredDIESkipper is newLazyDIESkipper for a table whose
// declarations a pass made before found (abbrevInfo.decls): the
// skipper makes no pass of its own, and a declaration is checked when
// a DIE first uses it. decls is only read.
func newDeclaredDIESkipper(info, abbrev []byte, decls []uint32, h unitHeader, order binary.ByteOrder) (*dieSkipper, error) {
	s, err := unitSkipper(info, h, order)
	if err != nil {
		return nil, err
	}
	s.abbrev, s.decls = abbrev, decls
	s.small = make([]*dieShape, len(decls))
	return s, nil
}

// unitSkipper is a skipper of the unit of header h, without shapes.
func unitSkipper(info []byte, h unitHeader, order binary.ByteOrder) (*dieSkipper, error) {
	s := &dieSkipper{info: info, end: h.end, order: order, version: h.version, addrSize: int(h.addrSize),
		offSize: 4, refAddrSize: h.refAddrSize()}
	if h.is64 {
		s.offSize = 8
	}
	if h.end > uint64(len(info)) {
		return nil, fmt.Errorf("unit ends at %#x, past .debug_info's %#x bytes", h.end, len(info))
	}
	return s, nil
}

func (s *dieSkipper) orNil(err error) (*dieSkipper, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// shapeSlabs are the arrays shapes, their attributes and forms are cut
// from; past their capacity append copies, the shapes made so far
// staying where they are: still right.
type shapeSlabs struct {
	shapes []dieShape
	attrs  []dwarf.Attr
	forms  []uint64
	// sized: the arrays were made for the whole table. Else they grow
	// by chunks (room): a lazy skipper makes shapes one by one, and
	// append's copies, each keeping the arrays before it alive (the
	// shapes made point into them), were half of the 5 MB of shapes
	// gen-lto's origin readers made.
	sized bool
}

// The largest chunks a lazy skipper's slabs grow by: shapes, and
// attribute specifications (a shape with more than the chunk has room
// for copies it). Each chunk is twice the one before, from a few: a
// skipper that reads two DIEs makes little.
const (
	shapeChunk = 32
	specChunk  = 256
)

// room starts new chunks where the slabs cannot take another shape of
// a few attributes without copying.
func (slabs *shapeSlabs) room() {
	if slabs.sized {
		return
	}
	if len(slabs.shapes) == cap(slabs.shapes) {
		slabs.shapes = make([]dieShape, 0, min(shapeChunk, max(2, 2*cap(slabs.shapes))))
	}
	if cap(slabs.attrs)-len(slabs.attrs) < 8 {
		n := min(specChunk, max(16, 2*cap(slabs.attrs)))
		slabs.attrs = make([]dwarf.Attr, 0, n)
		slabs.forms = make([]uint64, 0, n)
	}
}

// readDecl reads the abbreviation declaration at p of abbrev: its code
// (0 ends the table), its shape, cut from slabs, and where the next one
// starts. With slabs nil the declaration is only checked: no shape.
func (s *dieSkipper) readDecl(abbrev []byte, p uint64, slabs *shapeSlabs) (code uint64, sh *dieShape, next uint64, err error) {
	uleb := func() (uint64, error) {
		v, n := readULEB(abbrev[min(p, uint64(len(abbrev))):])
		if n == 0 {
			return 0, fmt.Errorf("abbreviation table truncated")
		}
		p += uint64(n)
		return v, nil
	}
	if code, err = uleb(); err != nil {
		return 0, nil, p, err
	}
	if code = uint64(uint32(code)); code == 0 { // debug/dwarf's codes are 32 bits
		return 0, nil, p, nil
	}
	tag, err := uleb()
	if err != nil {
		return 0, nil, p, err
	}
	if p >= uint64(len(abbrev)) {
		return 0, nil, p, fmt.Errorf("abbreviation table truncated")
	}
	first := 0
	if slabs != nil {
		slabs.room()
		slabs.shapes = append(slabs.shapes, dieShape{tag: dwarf.Tag(tag), children: abbrev[p] != 0})
		sh, first = &slabs.shapes[len(slabs.shapes)-1], len(slabs.attrs)
	}
	p++
	for {
		attr, err := uleb()
		if err != nil {
			return 0, nil, p, err
		}
		form, err := uleb()
		if err != nil {
			return 0, nil, p, err
		}
		if attr == 0 && form == 0 {
			break
		}
		size, ok := s.formSize(form)
		if !ok {
			return 0, nil, p, fmt.Errorf("abbreviation %d: unknown form %#x", code, form)
		}
		if form == formImplicitConst {
			if _, err := uleb(); err != nil { // its value: a signed LEB128
				return 0, nil, p, err
			}
		}
		if sh == nil {
			continue
		}
		if size < 0 {
			sh.fixed = -1
		} else if sh.fixed >= 0 {
			sh.fixed += size
		}
		sh.sibling = sh.sibling || dwarf.Attr(attr) == dwarf.AttrSibling
		slabs.attrs = append(slabs.attrs, dwarf.Attr(attr))
		slabs.forms = append(slabs.forms, form)
	}
	if sh == nil {
		return code, nil, p, nil
	}
	n := len(slabs.attrs)
	sh.attrs, sh.forms = slabs.attrs[first:n:n], slabs.forms[first:n:n]
	return code, sh, p, nil
}

// abbrevSizes is what an abbreviation table holds: its abbreviations,
// their attribute specifications, and one more than the largest code
// below smallCodes.
type abbrevSizes struct {
	shapes, specs, smallCodes int
}

// abbrevCounts counts the abbreviations of the table at the start of
// abbrev, as far as it reads: errors are newDIESkipper's to report.
func abbrevCounts(abbrev []byte) abbrevSizes {
	var n abbrevSizes
	p := 0
	uleb := func() (uint64, bool) {
		v, k := readULEB(abbrev[min(p, len(abbrev)):])
		p += k
		return v, k > 0
	}
	for {
		code, ok := uleb()
		if !ok || code == 0 {
			return n
		}
		if _, ok := uleb(); !ok || p >= len(abbrev) { // tag
			return n
		}
		p++ // has children
		n.shapes++
		if code < smallCodes {
			n.smallCodes = max(n.smallCodes, int(code)+1)
		}
		for {
			attr, ok1 := uleb()
			form, ok2 := uleb()
			if !ok1 || !ok2 {
				return n
			}
			if attr == 0 && form == 0 {
				break
			}
			if form == formImplicitConst {
				uleb()
			}
			n.specs++
		}
	}
}

func (s *dieSkipper) shape(code uint64) *dieShape {
	if code < uint64(len(s.small)) {
		return s.small[code]
	}
	return s.large[code]
}

func (s *dieSkipper) setShape(code uint64, sh *dieShape) {
	if code < smallCodes {
		if code >= uint64(len(s.small)) {
			s.small = append(s.small, make([]*dieShape, code+1-uint64(len(s.small)))...)
		}
		s.small[code] = sh
		return
	}
	if s.large == nil {
		s.large = map[uint64]*dieShape{}
	}
	s.large[code] = sh
}

// readULEB decodes the unsigned LEB128 number at the start of b; n is
// its length, 0 when b ends inside it.
func readULEB(b []byte) (v uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 { // most numbers: one byte, no loop
		return uint64(b[0]), 1
	}
	var shift uint
	for i, c := range b {
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// readSLEB is readULEB for a signed number. Both drop the bits past
// 64, as debug/dwarf does.
func readSLEB(b []byte) (v int64, n int) {
	var shift uint
	for i, c := range b {
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
	return 0, 0
}

// code reads the abbreviation code of the DIE at pos: its shape (nil
// for a null entry) and where its attributes start.
func (s *dieSkipper) code(pos uint64) (*dieShape, uint64, error) {
	if pos >= s.end {
		return nil, pos, fmt.Errorf("DIE at %#x: past the unit's end: %w", pos, errDIESkip)
	}
	c, n := readULEB(s.info[pos:s.end])
	if n == 0 {
		return nil, pos, fmt.Errorf("DIE at %#x: %w", pos, errDIESkip)
	}
	if c = uint64(uint32(c)); c == 0 { // debug/dwarf's codes are 32 bits
		return nil, pos + uint64(n), nil
	}
	sh := s.shape(c)
	if sh == nil && c < uint64(len(s.decls)) && s.decls[c] != 0 {
		// A lazy skipper's shape met first.
		sh = s.declShape(uint64(s.decls[c] - 1))
		s.small[c] = sh
	}
	if sh == nil {
		return nil, pos, fmt.Errorf("DIE at %#x: no abbreviation %d: %w", pos, c, errDIESkip)
	}
	return sh, pos + uint64(n), nil
}

// attrs steps over the attributes starting at pos of a DIE of shape sh.
func (s *dieSkipper) attrs(pos uint64, sh *dieShape) (uint64, error) {
	if sh.fixed >= 0 {
		if uint64(sh.fixed) > s.end-pos {
			return pos, fmt.Errorf("attributes at %#x: %w", pos, errDIESkip)
		}
		return pos + uint64(sh.fixed), nil
	}
	for _, f := range sh.forms {
		var err error
		if pos, err = s.value(pos, f, 0); err != nil {
			return pos, err
		}
	}
	return pos, nil
}

// value steps over one value of form f at pos; indirect counts the
// DW_FORM_indirect met on the way, which hostile input could chain.
func (s *dieSkipper) value(pos, f uint64, indirect int) (uint64, error) {
	size, ok := s.formSize(f)
	if !ok || indirect > 4 {
		return pos, fmt.Errorf("value at %#x: form %#x: %w", pos, f, errDIESkip)
	}
	rest := s.info[pos:s.end]
	n := uint64(size) // of the value, after a length of nl bytes
	nl := uint64(0)
	switch {
	case size >= 0:
	case f == formString:
		i := 0
		for i < len(rest) && rest[i] != 0 {
			i++
		}
		n, nl = uint64(i)+1, 0
	case f == formBlock1:
		if len(rest) < 1 {
			return pos, fmt.Errorf("block at %#x: %w", pos, errDIESkip)
		}
		n, nl = uint64(rest[0]), 1
	case f == formBlock2:
		if len(rest) < 2 {
			return pos, fmt.Errorf("block at %#x: %w", pos, errDIESkip)
		}
		n, nl = uint64(s.order.Uint16(rest)), 2
	case f == formBlock4:
		if len(rest) < 4 {
			return pos, fmt.Errorf("block at %#x: %w", pos, errDIESkip)
		}
		n, nl = uint64(s.order.Uint32(rest)), 4
	case f == formBlock, f == formExprloc:
		v, k := readULEB(rest)
		if k == 0 {
			return pos, fmt.Errorf("block at %#x: %w", pos, errDIESkip)
		}
		n, nl = v, uint64(k)
	case f == formIndirect:
		v, k := readULEB(rest)
		if k == 0 {
			return pos, fmt.Errorf("indirect form at %#x: %w", pos, errDIESkip)
		}
		return s.value(pos+uint64(k), v, indirect+1)
	default: // a LEB128 number
		_, k := readULEB(rest)
		if k == 0 {
			return pos, fmt.Errorf("number at %#x: %w", pos, errDIESkip)
		}
		n = uint64(k)
	}
	if nl > uint64(len(rest)) || n > uint64(len(rest))-nl {
		return pos, fmt.Errorf("value at %#x runs past the unit's end: %w", pos, errDIESkip)
	}
	return pos + nl + n, nil
}

// children steps over the children of a DIE starting at pos, through
// the null entry that ends them; a child's own children by its
// DW_AT_sibling where it has one.
func (s *dieSkipper) children(pos uint64) (uint64, error) {
	for depth := 1; depth > 0; {
		sh, at, err := s.code(pos)
		if err != nil {
			return pos, err
		}
		if sh == nil {
			depth--
			pos = at
			continue
		}
		end, err := s.attrs(at, sh)
		if err != nil {
			return end, err
		}
		pos = end
		if sh.children {
			if sib, ok := s.siblingAhead(at, end, sh); ok {
				pos = sib
			} else {
				depth++
			}
		}
	}
	return pos, nil
}

// siblingAhead is the DW_AT_sibling of the DIE of shape sh whose
// attributes lie in [at, end), where it points past them and into the
// unit: the end of the DIE's children, found without reading them.
func (s *dieSkipper) siblingAhead(at, end uint64, sh *dieShape) (uint64, bool) {
	if !sh.sibling || !s.unitKnown {
		return 0, false
	}
	sib, ok := s.sibling(at, s.unit, sh)
	if !ok || sib < end || sib > s.end {
		return 0, false
	}
	return sib, true
}

// tree steps over the DIE at pos and its children.
func (s *dieSkipper) tree(pos uint64) (uint64, error) {
	sh, at, err := s.code(pos)
	if err != nil || sh == nil {
		return at, err
	}
	end, err := s.attrs(at, sh)
	if err != nil || !sh.children {
		return end, err
	}
	if sib, ok := s.siblingAhead(at, end, sh); ok {
		return sib, nil
	}
	return s.children(end)
}

// pcRange reads the DW_AT_low_pc and DW_AT_high_pc of the DIE of shape
// sh whose attributes start at pos, as debug/dwarf gives them: high is
// an address, or (highConst) an offset from low. ok is false where the
// DIE has something else (DW_AT_ranges, indexed addresses, DWARF 2 or
// 3 constants): debug/dwarf reads it then.
func (s *dieSkipper) pcRange(pos uint64, sh *dieShape) (pc pcPair, ok bool) {
	if s.addrSize != 4 && s.addrSize != 8 {
		return pc, false
	}
	for i, f := range sh.forms {
		next, err := s.value(pos, f, 0) // in the unit: the reads below are
		if err != nil {
			return pc, false
		}
		switch a := sh.attrs[i]; {
		case a == dwarf.AttrRanges:
			return pc, false
		case a == dwarf.AttrLowpc:
			if f != formAddr {
				return pc, false
			}
			pc.low, pc.hasLow = s.addr(pos), true
		case a == dwarf.AttrHighpc && f == formAddr:
			pc.high, pc.hasHigh = s.addr(pos), true
		case a == dwarf.AttrHighpc:
			if s.version < 4 {
				return pc, false
			}
			pc.hasHigh, pc.highConst = true, true
			rest := s.info[pos:s.end]
			switch f {
			case formData1:
				pc.high = uint64(rest[0])
			case formData2:
				pc.high = uint64(s.order.Uint16(rest))
			case formData4:
				pc.high = uint64(s.order.Uint32(rest))
			case formData8:
				pc.high = s.order.Uint64(rest)
			case formUdata:
				pc.high, _ = readULEB(rest)
			default:
				return pc, false
			}
		}
		pos = next
	}
	return pc, true
}

// pcPair is a DIE's DW_AT_low_pc and DW_AT_high_pc.
type pcPair struct {
	low, high                  uint64
	hasLow, hasHigh, highConst bool
}

// addr reads the address at pos; the caller knows it is in the unit.
func (s *dieSkipper) addr(pos uint64) uint64 {
	if s.addrSize == 4 {
		return uint64(s.order.Uint32(s.info[pos:s.end]))
	}
	return s.order.Uint64(s.info[pos:s.end])
}

// sibling reads the DW_AT_sibling of the DIE of shape sh whose
// attributes start at pos, in the unit at unit: the section offset of
// the DIE after its children. ok is false where it has none, or one of
// a form other than the unit-relative references GCC writes.
func (s *dieSkipper) sibling(pos, unit uint64, sh *dieShape) (uint64, bool) {
	for i, f := range sh.forms {
		if sh.attrs[i] != dwarf.AttrSibling {
			next, err := s.value(pos, f, 0)
			if err != nil {
				return 0, false
			}
			pos = next
			continue
		}
		rest := s.info[pos:s.end]
		var v uint64
		switch {
		case f == formRef1 && len(rest) >= 1:
			v = uint64(rest[0])
		case f == formRef2 && len(rest) >= 2:
			v = uint64(s.order.Uint16(rest))
		case f == formRef4 && len(rest) >= 4:
			v = uint64(s.order.Uint32(rest))
		case f == formRef8 && len(rest) >= 8:
			v = s.order.Uint64(rest)
		case f == formRefUdata:
			n := 0
			if v, n = readULEB(rest); n == 0 {
				return 0, false
			}
		default:
			return 0, false
		}
		return unit + v, true
	}
	return 0, false
}

package elfx

import (
	"debug/dwarf"
	"encoding/binary"
)

// Walking to one DIE of a big unit passes hundreds of DIEs whose
// attributes nobody reads: debug/dwarf decodes every attribute of each
// (and allocates its entry), which was most of the time spent finding
// the names around a DIE (scopepath.go). rawDIEs reads only what the walk
// needs of the DIEs it passes: where each starts, its tag, whether it
// has children and its DW_AT_sibling, sizing the other attributes by
// their forms.

// abbrevDecl is one abbreviation of a unit's table.
type abbrevDecl struct {
	tag      dwarf.Tag
	children bool
	forms    []uint64 // each attribute's form (0 for DW_FORM_implicit_const: no bytes)
	sibling  int      // index in forms of DW_AT_sibling, -1 for none
}

// parseAbbrevDecls parses the abbreviation table at the start of b. ok
// is false where it is malformed or uses a form that cannot be sized
// without its value (DW_FORM_indirect).
func parseAbbrevDecls(b []byte) (decls map[uint64]*abbrevDecl, ok bool) {
	decls = map[uint64]*abbrevDecl{}
	p := 0
	for {
		code, n := uleb(b[p:])
		if n == 0 {
			return nil, false
		}
		p += n
		if code == 0 {
			return decls, true
		}
		tag, n := uleb(b[p:])
		if n == 0 || p+n >= len(b) || tag == 0 {
			return nil, false // tag 0 reads as a null entry in debug/dwarf
		}
		p += n
		d := &abbrevDecl{tag: dwarf.Tag(tag), children: b[p] != 0, sibling: -1}
		p++
		for {
			attr, n1 := uleb(b[p:])
			if n1 == 0 {
				return nil, false
			}
			form, n2 := uleb(b[p+n1:])
			if n2 == 0 {
				return nil, false
			}
			p += n1 + n2
			if attr == 0 && form == 0 {
				break
			}
			switch form {
			case formIndirect:
				return nil, false
			case formImplicitConst:
				_, n := sleb(b[p:])
				if n == 0 {
					return nil, false
				}
				p += n
				form = 0
			}
			if dwarf.Attr(attr) == dwarf.AttrSibling {
				d.sibling = len(d.forms)
			}
			d.forms = append(d.forms, form)
		}
		decls[code] = d
	}
}

// formImplicitConst is DW_FORM_implicit_const: its value is in the
// abbreviation.
const formImplicitConst = 0x21

// rawDIE is what rawDIEs reads of one DIE: decl is nil for a null entry.
type rawDIE struct {
	at      uint64 // offset in the section
	decl    *abbrevDecl
	sibling uint64 // section offset of DW_AT_sibling, 0 for none
}

// rawDIEs reads a unit's DIEs from the section bytes.
type rawDIEs struct {
	b      []byte // the section, up to the unit's end
	p      uint64 // the next DIE
	unit   uint64 // the unit's offset (references are relative to it)
	h      unitHeader
	decls  map[uint64]*abbrevDecl
	order  binary.ByteOrder
	offLen int // 4 or 8: DWARF's offset size
}

// newRawDIEs reads the unit at unit of the section b, from its first DIE.
func newRawDIEs(b []byte, unit uint64, h unitHeader, decls map[uint64]*abbrevDecl, order binary.ByteOrder) *rawDIEs {
	r := &rawDIEs{b: b[:h.end], p: h.die, unit: unit, h: h, decls: decls, order: order, offLen: 4}
	if h.is64 {
		r.offLen = 8
	}
	return r
}

// next reads the DIE at r.p; ok is false at the unit's end or where the
// bytes cannot be read.
func (r *rawDIEs) next() (d rawDIE, ok bool) {
	d.at = r.p
	if r.p >= uint64(len(r.b)) {
		return d, false
	}
	code, n := uleb(r.b[r.p:])
	if n == 0 {
		return d, false
	}
	p := r.p + uint64(n)
	if code == 0 {
		r.p = p
		return d, true
	}
	decl := r.decls[code]
	if decl == nil {
		return d, false
	}
	d.decl = decl
	for i, form := range decl.forms {
		size, ok := r.formSize(form, p)
		if !ok || size > uint64(len(r.b))-p {
			return d, false
		}
		if i == decl.sibling {
			if v, ok := r.unitRef(form, p, size); ok {
				d.sibling = r.unit + v
			}
		}
		p += size
	}
	r.p = p
	return d, true
}

// skipChildren moves past the children of d, the DIE just read: to its
// sibling where that lies ahead, else DIE by DIE.
func (r *rawDIEs) skipChildren(d rawDIE) bool {
	if d.decl == nil || !d.decl.children {
		return true
	}
	if d.sibling >= r.p && d.sibling <= uint64(len(r.b)) {
		r.p = d.sibling
		return true
	}
	for depth := 1; depth > 0; {
		c, ok := r.next()
		if !ok {
			return false
		}
		switch {
		case c.decl == nil:
			depth--
		case c.decl.children:
			if c.sibling >= r.p && c.sibling <= uint64(len(r.b)) {
				r.p = c.sibling
			} else {
				depth++
			}
		}
	}
	return true
}

// unitRef reads a unit-relative reference (DW_FORM_ref1/2/4/8/udata)
// of size bytes at p.
func (r *rawDIEs) unitRef(form, p, size uint64) (uint64, bool) {
	b, order := r.b[p:p+size], r.order
	switch form {
	case 0x11:
		return uint64(b[0]), true
	case 0x12:
		return uint64(order.Uint16(b)), true
	case 0x13:
		return uint64(order.Uint32(b)), true
	case 0x14:
		return order.Uint64(b), true
	case 0x15:
		v, _ := uleb(b)
		return v, true
	}
	return 0, false
}

// formSize is how many bytes the value of form at p takes.
func (r *rawDIEs) formSize(form, p uint64) (uint64, bool) {
	b := r.b[p:]
	off := uint64(r.offLen)
	block := func(lenSize uint64, n uint64) (uint64, bool) { return lenSize + n, true }
	switch form {
	case 0, 0x19: // implicit_const, flag_present
		return 0, true
	case 0x0b, 0x0c, 0x11, 0x25, 0x29: // data1, flag, ref1, strx1, addrx1
		return 1, true
	case 0x05, 0x12, 0x26, 0x2a: // data2, ref2, strx2, addrx2
		return 2, true
	case 0x27, 0x2b: // strx3, addrx3
		return 3, true
	case 0x06, 0x13, 0x1c, 0x28, 0x2c: // data4, ref4, ref_sup4, strx4, addrx4
		return 4, true
	case 0x07, 0x14, 0x20, 0x24: // data8, ref8, ref_sig8, ref_sup8
		return 8, true
	case 0x1e: // data16
		return 16, true
	case 0x01: // addr
		return uint64(r.h.addrSize), r.h.addrSize != 0
	case 0x0e, 0x17, 0x1d, 0x1f, 0x1f20, 0x1f21: // strp, sec_offset, strp_sup, line_strp, GNU_ref_alt, GNU_strp_alt
		return off, true
	case formRefAddr:
		n := uint64(r.h.refAddrSize())
		return n, n != 0
	case 0x0d, 0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02: // sdata, udata, ref_udata, strx, addrx, loclistx, rnglistx, GNU_addr_index, GNU_str_index
		_, n := uleb(b)
		return uint64(n), n != 0
	case 0x08: // string
		for i, c := range b {
			if c == 0 {
				return uint64(i) + 1, true
			}
		}
		return 0, false
	case 0x0a: // block1
		if len(b) < 1 {
			return 0, false
		}
		return block(1, uint64(b[0]))
	case 0x03: // block2
		if len(b) < 2 {
			return 0, false
		}
		return block(2, uint64(r.order.Uint16(b)))
	case 0x04: // block4
		if len(b) < 4 {
			return 0, false
		}
		return block(4, uint64(r.order.Uint32(b)))
	case 0x09, 0x18: // block, exprloc
		v, n := uleb(b)
		if n == 0 || v > uint64(len(b)) {
			return 0, false
		}
		return block(uint64(n), v)
	}
	return 0, false
}

// uleb reads an unsigned LEB128 number; n is 0 where b ends inside it or
// it runs past 10 bytes.
func uleb(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// sleb reads a signed LEB128 number, as uleb does.
func sleb(b []byte) (v int64, n int) {
	var shift uint
	for i := 0; i < len(b) && i < 10; i++ {
		v |= int64(b[i]&0x7f) << shift
		shift += 7
		if b[i]&0x80 == 0 {
			if shift < 64 && b[i]&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
	return 0, 0
}

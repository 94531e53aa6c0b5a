package elfx

import (
	"bytes"
	"debug/dwarf"
	"sync"
)

// A frame's name is mostly read from DIEs of other units: LTO's ltrans
// units name the abstract functions of each source file's early-debug
// unit with DW_FORM_ref_addr, dwz's units the DIEs it moved into partial
// units. Opening each of those units as a dwarf.Data parses its whole
// abbreviation table into maps (gen-lto: 330 early-debug units of ~200
// abbreviations, a fifth of its report's CPU and a good part of its
// heap) to read a dozen DIEs. funcName reads them instead by their
// abbreviations' forms with a dieSkipper of the unit (dieskip.go) that
// makes the shapes of the declarations its DIEs use, decoding only the
// attributes a name needs: the names, the origin references, whether
// the DIE has code. Anything else (a form it does
// not decode for those attributes, a reference it cannot place, a unit
// debug/dwarf would read otherwise) makes funcName read the chain again
// through dwarf.Data, as before: the names are the same either way.

// originReader reads the DIEs of one unit for funcName, made once per
// unit (cuIndex.originReader).
type originReader struct {
	// mu serializes the skipper, which makes its shapes as DIEs use
	// them.
	mu     sync.Mutex
	s      *dieSkipper
	l      *lazyDWARF
	cu     *cuIndex  // the unit
	top    uint64    // the section offset of the unit's top DIE
	topSh  *dieShape // its shape
	first  uint64    // where the top DIE's attributes end: its first child
	scopes bool      // the unit's language may qualify names (hasScopes)
	// codeless: the top DIE has neither DW_AT_low_pc nor DW_AT_ranges
	// (an early-debug unit): its pages are given back after each read
	// (unitpages.go).
	codeless bool
}

// originDIE is what funcName needs of a DIE.
type originDIE struct {
	name, linkage, mips          string
	hasName, hasLinkage, hasMips bool
	// origin is where DW_AT_abstract_origin, else DW_AT_specification,
	// points (a section offset), where hasOrigin.
	origin    uint64
	hasOrigin bool
	// code: the DIE has DW_AT_low_pc, DW_AT_high_pc or DW_AT_ranges.
	code bool
}

// originReader returns the unit's reader, nil where the unit cannot be
// read so: not a lazy index's, a damaged header or table, a table
// debug/dwarf would not read on its own (openUnit's last resort), a
// version it does not read.
func (cu *cuIndex) originReader() *originReader {
	cu.originOnce.Do(func() {
		if cu.lazy != nil {
			cu.origins = cu.lazy.newOriginReader(cu)
		}
	})
	return cu.origins
}

func (l *lazyDWARF) newOriginReader(cu *cuIndex) *originReader {
	off := uint64(cu.off)
	h, err := l.readUnitHeader(off)
	if err != nil || h.version < 2 || h.version > 5 {
		return nil
	}
	code, _ := l.topCode(h)
	t, err := l.ensureAbbrevs(h.abbrevOff, code) // as openUnit asks: parsed once
	if err != nil || !t.parsed || !t.ok {
		return nil
	}
	if _, err := refAddrForm(h); len(t.refAddr) > 0 && err != nil {
		return nil
	}
	if t.decls == nil {
		return nil // codes declared twice, or too large: debug/dwarf takes the last of each
	}
	s, err := newDeclaredDIESkipper(l.info.buf, l.abbrev.buf[h.abbrevOff:t.end], t.decls, h, l.order)
	if err != nil {
		return nil
	}
	s.unit, s.unitKnown, s.byDecl = off, true, &l.declShapes
	r := &originReader{s: s, l: l, cu: cu, top: h.die}
	sh, at, err := s.code(h.die)
	if err != nil || sh == nil {
		return nil
	}
	r.topSh = sh
	// What debug/dwarf would fail on when opening the unit fails the
	// reader too: a form it reads with a section it may not have, a
	// string it cannot find.
	lang, hasLang := int64(0), false
	r.codeless = true
	for i, f := range sh.forms {
		next, err := s.value(at, f, 0)
		if err != nil || !plainForm(f) {
			return nil
		}
		if f == formStrp || f == formLineStrp {
			if _, ok := r.str(at, next, f); !ok {
				return nil
			}
		}
		if a := sh.attrs[i]; a == dwarf.AttrLowpc || a == dwarf.AttrRanges {
			r.codeless = false
		}
		if sh.attrs[i] == dwarf.AttrLanguage && !hasLang {
			if lang, hasLang = r.constant(at, next, f); !hasLang {
				return nil
			}
		}
		at = next
	}
	r.first = at
	r.scopes = languageHasScopes(lang)
	return r
}

// done is called after each read, r.mu held: the pages of a unit
// without code are given back (unitpages.go).
func (r *originReader) done() {
	if r.codeless {
		r.l.giveBackUnit(r.cu, r.s.end)
	}
}

// constant reads the value of form f in [pos, next) as debug/dwarf's
// Val gives a constant class's; ok is false for another form.
func (r *originReader) constant(pos, next, f uint64) (int64, bool) {
	b := r.s.info[pos:next]
	switch f {
	case formData1:
		return int64(b[0]), true
	case formData2:
		return int64(r.l.order.Uint16(b)), true
	case formData4:
		return int64(r.l.order.Uint32(b)), true
	case formData8:
		return int64(r.l.order.Uint64(b)), true
	case formUdata:
		v, _ := readULEB(b)
		return int64(v), true
	case formSdata:
		v, _ := readSLEB(b)
		return v, true
	}
	return 0, false
}

// die reads the DIE at section offset pos of the unit; r.mu is held.
// ok is false where funcName must read it through dwarf.Data: pos is
// not in the unit's DIEs, or an attribute it needs has a form decoded
// here otherwise than debug/dwarf would, or none (strx, alt strings and
// references, DW_FORM_indirect...).
func (r *originReader) die(pos uint64) (d originDIE, ok bool) {
	s := r.s
	if pos < r.top || pos >= s.end {
		return d, false
	}
	sh, at, err := s.code(pos)
	if err != nil || sh == nil {
		return d, false
	}
	var spec uint64
	hasSpec := false
	for i, f := range sh.forms {
		if !plainForm(f) {
			return d, false // debug/dwarf may fail on the DIE, or read it otherwise
		}
		next, err := s.value(at, f, 0)
		if err != nil {
			return d, false
		}
		switch a := sh.attrs[i]; a {
		case dwarf.AttrName, dwarf.AttrLinkageName, attrMIPSLinkageName:
			str, isStr := r.str(at, next, f)
			if !isStr {
				return d, false
			}
			switch {
			case a == dwarf.AttrName && !d.hasName:
				d.name, d.hasName = str, true
			case a == dwarf.AttrLinkageName && !d.hasLinkage:
				d.linkage, d.hasLinkage = str, true
			case a == attrMIPSLinkageName && !d.hasMips:
				d.mips, d.hasMips = str, true
			}
		case dwarf.AttrAbstractOrigin, dwarf.AttrSpecification:
			ref, isRef := r.ref(at, next, f)
			if !isRef {
				return d, false
			}
			switch {
			case a == dwarf.AttrAbstractOrigin && !d.hasOrigin:
				d.origin, d.hasOrigin = ref, true
			case a == dwarf.AttrSpecification && !hasSpec:
				spec, hasSpec = ref, true
			}
		case dwarf.AttrLowpc, dwarf.AttrHighpc, dwarf.AttrRanges:
			d.code = true
		}
		at = next
	}
	if !d.hasOrigin && hasSpec {
		d.origin, d.hasOrigin = spec, true
	}
	return d, true
}

// plainForm reports whether debug/dwarf reads a value of form f without
// another section, so without failing where the skipper does not: the
// DIEs read here have only such forms.
func plainForm(f uint64) bool {
	switch f {
	case formStrx, formStrx1, formStrx1 + 1, formStrx1 + 2, formStrx4,
		formAddrx, formAddrx1, formAddrx1 + 1, formAddrx1 + 2, formAddrx4,
		formGNUAddrIndex, formGNUStrIndex, formIndirect:
		return false
	}
	return true
}

// str reads the string of form f in [pos, next) as debug/dwarf does;
// ok is false for a form it reads otherwise, or a string it would fail
// on.
func (r *originReader) str(pos, next, f uint64) (string, bool) {
	b := r.s.info[pos:next]
	var sec []byte
	switch f {
	case formString:
		return string(b[:len(b)-1]), true // the skipper found its NUL
	case formStrp:
		sec = r.l.sec[4] // .debug_str
	case formLineStrp:
		sec = r.l.sec[6] // .debug_line_str
		if len(sec) == 0 {
			return "", false
		}
	default:
		return "", false
	}
	var off uint64
	if r.s.offSize == 8 {
		off = r.l.order.Uint64(b)
	} else {
		off = uint64(r.l.order.Uint32(b))
	}
	if off >= uint64(len(sec)) {
		return "", false
	}
	i := bytes.IndexByte(sec[off:], 0)
	if i < 0 {
		return "", false
	}
	return string(sec[off : off+uint64(i)]), true
}

// ref reads the reference of form f in [pos, next) as a section offset
// of .debug_info; ok is false for a form that refers elsewhere (a type
// signature, a supplementary file).
func (r *originReader) ref(pos, next, f uint64) (uint64, bool) {
	b := r.s.info[pos:next]
	var v uint64
	switch f {
	case formRef1:
		v = uint64(b[0])
	case formRef2:
		v = uint64(r.l.order.Uint16(b))
	case formRef4:
		v = uint64(r.l.order.Uint32(b))
	case formRef8:
		v = r.l.order.Uint64(b)
	case formRefUdata:
		v, _ = readULEB(b)
	case formRefAddr:
		switch len(b) {
		case 4:
			return uint64(r.l.order.Uint32(b)), true
		case 8:
			return r.l.order.Uint64(b), true
		}
		return 0, false
	default:
		return 0, false
	}
	if v > ^uint64(0)-r.s.unit {
		return 0, false
	}
	return r.s.unit + v, true
}

// qualifier is pathQualifier's answer for the DIE at section offset
// target, its path read here; r.mu is held. ok is false where the
// answer needs the unit opened (a subprogram with code on the path, a
// DIE not read here).
func (r *originReader) qualifier(target uint64) (string, bool) {
	if !r.topSh.children || target <= r.top {
		return "", true
	}
	return qualPath(r.s, r.first, target, r)
}

// scopeName is the DW_AT_name of the namespace, module or class at pos.
func (r *originReader) scopeName(pos uint64) (string, bool) {
	d, ok := r.die(pos)
	return d.name, ok
}

// noCode: the subprogram at pos has none of the attributes of code. One
// that has is left to pathQualifier, which asks debug/dwarf for its
// ranges.
func (r *originReader) noCode(pos uint64) bool {
	d, ok := r.die(pos)
	return ok && !d.code
}

// refAddrOrigin is the section offset e's DW_AT_abstract_origin, else
// its DW_AT_specification, gives where that is a DW_FORM_ref_addr (read
// as a constant: see openUnit); ok is false for any other reference,
// which cu.origin follows.
func (cu *cuIndex) refAddrOrigin(e *dwarf.Entry) (uint64, bool) {
	f := e.AttrField(dwarf.AttrAbstractOrigin)
	if f == nil {
		f = e.AttrField(dwarf.AttrSpecification)
	}
	if f == nil || !cu.refAddr || f.Class != dwarf.ClassConstant {
		return 0, false
	}
	v, ok := f.Val.(int64)
	return uint64(v), ok && v >= 0
}

// originUnit is the unit holding section offset off, which a DIE of
// unit at on the chain that names a frame of cu refers to, and its
// reader; nil where funcName must read the chain through dwarf.Data:
// off is in no unit, or in cu's (loaded: its DIEs are read by its
// dwarf.Data), or the unit has no reader.
func (x *dwarfIndex) originUnit(cu, at *cuIndex, off uint64) (*cuIndex, *originReader) {
	if at.lazy == nil {
		return nil, nil
	}
	t, err := at.lazy.findUnit(off)
	if err != nil || t == cu {
		return nil, nil
	}
	r := t.originReader()
	if r == nil {
		return nil, nil
	}
	return t, r
}

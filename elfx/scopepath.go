package elfx

import "debug/dwarf"

// A frame's function is often named by a DIE of another unit: LTO's
// ltrans units refer to the declarations in each source file's
// early-debug unit, dwz's units to the partial units it moved them into.
// The names around that DIE (namespaces, classes) qualify it. Reading
// that unit's whole scope tree for them walks every class and namespace
// of a template-heavy unit (64% of the generated C++ LTO program's
// report); following DW_AT_sibling along the path from the unit's top to
// the DIE reads the DIEs on that path and their preceding siblings only.

// qualifier returns the names around the subprogram DIE at off of unit at
// (the unit of the frame being named: cu), as the unit's scope walk
// (scopetree.go) would record them, "" for none.
func (x *dwarfIndex) qualifier(cu, at *cuIndex, off dwarf.Offset) string {
	if q, ok := x.scopeOf.Load(at.base + off); ok {
		return q.(string)
	}
	if !hasScopes(at) {
		return ""
	}
	if at != cu {
		if q, ok := at.pathQualifier(off); ok {
			return q
		}
		at.load(x)
	}
	at.expandAround(x, off)
	if q, ok := x.scopeOf.Load(at.base + off); ok {
		return q.(string)
	}
	return ""
}

// pathQualifier walks from the unit's top DIE to the DIE at off through
// the DIEs the scope walk descends into (namespaces, modules, classes,
// structures, unions, lexical blocks), skipping each subtree that ends
// before off; only the DIEs on the path are decoded (dieskip.go). ok is
// false where the answer needs the scope tree: off may lie in a
// subprogram with code (its body is read with the names around inlined
// calls), the DIEs could not be read, or the unit is not a lazy index's.
func (cu *cuIndex) pathQualifier(off dwarf.Offset) (qual string, ok bool) {
	l := cu.lazy
	if l == nil || cu.entry == nil {
		return "", false
	}
	if !cu.entry.Children || off <= cu.entry.Offset {
		return "", true
	}
	unit := uint64(cu.off)
	h, err := l.readUnitHeader(unit)
	if err != nil {
		return "", false
	}
	info, err := l.info.ensure(unit, h.end)
	if err != nil {
		return "", false
	}
	t, err := l.ensureAbbrevs(h.abbrevOff)
	if err != nil || !t.parsed {
		return "", false
	}
	decls, ok := parseAbbrevDecls(l.abbrev.buf[h.abbrevOff:t.end])
	if !ok {
		return "", false
	}
	r := newRawDIEs(info, unit, h, decls, l.order)
	if top, ok := r.next(); !ok || top.decl == nil || !top.decl.children {
		return "", false
	}
	target := uint64(cu.base + off)
	quals := []string{""} // the names around each open level
	for len(quals) > 0 {
		d, ok := r.next()
		if !ok {
			if d.at >= h.end {
				break
			}
			return "", false
		}
		if d.decl == nil {
			quals = quals[:len(quals)-1]
			continue
		}
		q := quals[len(quals)-1]
		if d.at == target {
			if d.decl.tag == dwarf.TagSubprogram {
				return q, true
			}
			return "", true
		}
		if d.at > target {
			return "", true // off is no DIE the walk reaches
		}
		if !d.decl.children {
			continue
		}
		if d.sibling > d.at && d.sibling <= target {
			if !r.skipChildren(d) {
				return "", false
			}
			continue
		}
		// off may be inside this DIE's subtree.
		switch d.decl.tag {
		case dwarf.TagNamespace, dwarf.TagModule,
			dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
			e, err := cu.entryAt(dwarf.Offset(d.at) - cu.base)
			if err != nil || e == nil {
				return "", false
			}
			n, _ := cu.stringAttr(e, dwarf.AttrName)
			if n == "" && e.Tag == dwarf.TagNamespace {
				n = "(anonymous namespace)"
			}
			if n != "" {
				q = joinQual(q, n)
			}
			quals = append(quals, q)
		case dwarf.TagLexDwarfBlock:
			quals = append(quals, q)
		case dwarf.TagSubprogram:
			e, err := cu.entryAt(dwarf.Offset(d.at) - cu.base)
			if err != nil || e == nil {
				return "", false
			}
			if ranges, _ := cu.d.Ranges(e); len(ranges) > 0 {
				return "", false // a body the scope tree reads with expand
			}
			if !r.skipChildren(d) { // a declaration: the walk reads nothing inside
				return "", false
			}
		default:
			if !r.skipChildren(d) {
				return "", false
			}
		}
	}
	return "", true
}

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
// before off. ok is false where the answer needs the scope tree: off may
// lie in a subprogram with code (its body is read with the names around
// inlined calls), or the DIEs could not be read.
func (cu *cuIndex) pathQualifier(off dwarf.Offset) (qual string, ok bool) {
	if cu.entry == nil {
		return "", false
	}
	if !cu.entry.Children || off <= cu.entry.Offset {
		return "", true
	}
	r := cu.d.Reader()
	r.Seek(cu.entry.Offset)
	if _, err := r.Next(); err != nil {
		return "", false
	}
	quals := []string{""} // the names around each open level
	for len(quals) > 0 {
		e, err := r.Next()
		if err != nil {
			return "", false
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			quals = quals[:len(quals)-1]
			continue
		}
		q := quals[len(quals)-1]
		if e.Offset == off {
			if e.Tag == dwarf.TagSubprogram {
				return q, true
			}
			return "", true
		}
		if e.Offset > off {
			return "", true // off is no DIE the walk reaches
		}
		if !e.Children {
			continue
		}
		if sib, has := e.Val(dwarf.AttrSibling).(dwarf.Offset); has && sib <= off {
			r.SkipChildren()
			continue
		}
		// off may be inside this DIE's subtree.
		switch e.Tag {
		case dwarf.TagNamespace, dwarf.TagModule,
			dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
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
			if ranges, _ := cu.d.Ranges(e); len(ranges) > 0 {
				return "", false // a body the scope tree reads with expand
			}
			r.SkipChildren() // a declaration: the walk reads nothing inside
		default:
			r.SkipChildren()
		}
	}
	return "", true
}

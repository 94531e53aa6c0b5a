package elfx

import "debug/dwarf"

// A frame's function is often named by a DIE of another unit: LTO's
// ltrans units refer to the declarations in each source file's
// early-debug unit, dwz's units to the partial units it moved them into.
// The names around that DIE (namespaces, classes) qualify it. Reading
// that unit's whole scope tree for them walks every class and namespace
// of a template-heavy unit (64% of the generated C++ LTO program's
// report); following DW_AT_sibling along the path from the unit's top to
// the DIE steps over the DIEs before it on each level of the path and
// decodes only those on it.

// qualifier returns the names around the subprogram DIE at off of unit
// at, where cu is the unit of the frame being named (loaded), as the
// scope walks (scopetree.go, scopequal.go) record them, "" for none.
func (x *dwarfIndex) qualifier(cu, at *cuIndex, off dwarf.Offset) string {
	h, off := x.unitHolding(at, off)
	if h != cu {
		if q, ok := h.pathQualifier(off); ok {
			return q
		}
		h.load(x)
	}
	h.expandAround(x, off)
	return h.qualOf(off)
}

// pathQualifier walks from the unit's top DIE to the DIE at off through
// the DIEs the scope walk descends into (namespaces, modules, classes,
// structures, unions, lexical blocks), skipping each subtree that ends
// before off by its DW_AT_sibling; the unit's dieSkipper (dieskip.go)
// steps over the DIEs, and only those on the path are decoded. ok is
// false where the answer needs the scope tree: off may lie in a
// subprogram with code (its body is read with the names around inlined
// calls), the DIEs could not be read, or the unit has no skipper (an
// eager index's).
func (cu *cuIndex) pathQualifier(off dwarf.Offset) (qual string, ok bool) {
	if cu.lazy == nil || cu.entry == nil {
		return "", false
	}
	if !cu.entry.Children || off <= cu.entry.Offset {
		return "", true
	}
	s := cu.lazy.newSkipper(cu, true)
	if s == nil {
		return "", false
	}
	unit, target := uint64(cu.off), uint64(cu.base+off)
	sh, at, err := s.code(uint64(cu.base + cu.entry.Offset))
	if err != nil || sh == nil {
		return "", false
	}
	pos, err := s.attrs(at, sh)
	if err != nil {
		return "", false
	}
	quals := []string{""} // the names around each open level
	for len(quals) > 0 && pos < s.end {
		here := pos
		sh, at, err := s.code(here)
		if err != nil {
			return "", false
		}
		if sh == nil {
			quals = quals[:len(quals)-1]
			pos = at
			continue
		}
		q := quals[len(quals)-1]
		if here == target {
			if sh.tag == dwarf.TagSubprogram {
				return q, true
			}
			return "", true
		}
		if here > target {
			return "", true // off is no DIE the walk reaches
		}
		if pos, err = s.attrs(at, sh); err != nil {
			return "", false
		}
		if !sh.children {
			continue
		}
		sib, hasSib := s.sibling(at, unit, sh)
		if hasSib && sib > here && sib <= target {
			pos = sib // off lies after this DIE's subtree
			continue
		}
		// off may be inside this DIE's subtree.
		switch sh.tag {
		case dwarf.TagNamespace, dwarf.TagModule,
			dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
			e, err := cu.entryAt(dwarf.Offset(here) - cu.base)
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
			continue
		case dwarf.TagLexDwarfBlock:
			quals = append(quals, q)
			continue
		case dwarf.TagSubprogram:
			e, err := cu.entryAt(dwarf.Offset(here) - cu.base)
			if err != nil || e == nil {
				return "", false
			}
			if ranges, _ := cu.d.Ranges(e); len(ranges) > 0 {
				return "", false // a body the scope tree reads with expand
			}
		}
		// A declaration's children, or a DIE's the walk does not
		// descend into: nothing inside is qualified.
		if hasSib && sib >= pos && sib <= s.end {
			pos = sib
		} else if pos, err = s.children(pos); err != nil {
			return "", false
		}
	}
	return "", true
}

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

// pathQualifier walks from the unit's top DIE to the DIE at off
// (qualPath), decoding the DIEs on the path with debug/dwarf. ok is
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
	sh, at, err := s.code(uint64(cu.base + cu.entry.Offset))
	if err != nil || sh == nil {
		return "", false
	}
	first, err := s.attrs(at, sh)
	if err != nil {
		return "", false
	}
	return qualPath(s, first, uint64(cu.base+off), entryDIEs{cu})
}

// pathDIEs decodes what qualPath needs of the DIEs on a path.
type pathDIEs interface {
	// scopeName is the DW_AT_name of the namespace, module, class,
	// structure or union at section offset pos; ok is false where it
	// cannot be read.
	scopeName(pos uint64) (name string, ok bool)
	// noCode reports whether the subprogram at pos certainly has no
	// code (no body for the scope tree to read).
	noCode(pos uint64) bool
}

// entryDIEs decodes a unit's DIEs with its dwarf.Data.
type entryDIEs struct{ cu *cuIndex }

func (d entryDIEs) scopeName(pos uint64) (string, bool) {
	e, err := d.cu.entryAt(dwarf.Offset(pos) - d.cu.base)
	if err != nil || e == nil {
		return "", false
	}
	n, _ := d.cu.stringAttr(e, dwarf.AttrName)
	return n, true
}

func (d entryDIEs) noCode(pos uint64) bool {
	e, err := d.cu.entryAt(dwarf.Offset(pos) - d.cu.base)
	if err != nil || e == nil {
		return false
	}
	ranges, _ := d.cu.d.Ranges(e)
	return len(ranges) == 0
}

// qualPath walks from first, where the children of the unit's top DIE
// start, to the DIE at section offset target through the DIEs the scope
// walk descends into (namespaces, modules, classes, structures, unions,
// lexical blocks), skipping each subtree that ends before target by its
// DW_AT_sibling: s, the unit's skipper, steps over the DIEs, and dies
// decodes only those on the path. ok is false where the answer needs
// the scope tree.
func qualPath(s *dieSkipper, first, target uint64, dies pathDIEs) (qual string, ok bool) {
	pos := first
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
			return "", true // target is no DIE the walk reaches
		}
		if pos, err = s.attrs(at, sh); err != nil {
			return "", false
		}
		if !sh.children {
			continue
		}
		sib, hasSib := s.sibling(at, s.unit, sh)
		if hasSib && sib > here && sib <= target {
			pos = sib // target lies after this DIE's subtree
			continue
		}
		// target may be inside this DIE's subtree.
		switch sh.tag {
		case dwarf.TagNamespace, dwarf.TagModule,
			dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
			n, ok := dies.scopeName(here)
			if !ok {
				return "", false
			}
			if n == "" && sh.tag == dwarf.TagNamespace {
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
			if !dies.noCode(here) {
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

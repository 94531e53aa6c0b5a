package elfx

import "debug/dwarf"

// The unlisted walk (unlisted.go) needs four things of each unit's top
// DIE: its tag, whether it has DW_AT_low_pc or DW_AT_ranges, and its
// DW_AT_stmt_list. LTO's early-debug units are most of the units a walk
// meets (python3.11-dbg: 179 of its 358) and have no code: opening
// each as a dwarf.Data of its own parses its whole abbreviation table.
// The top DIE is read instead by the DIE skipper's form sizes
// (dieskip.go), from the one declaration it uses; a dwarf.Data is made
// only for a unit a lookup reads.

// unitTop is what the unlisted walk needs of a unit's top DIE.
type unitTop struct {
	tag dwarf.Tag
	// ranged: the DIE has DW_AT_low_pc or DW_AT_ranges.
	ranged bool
	// stmtList is the offset of the unit's line program, where hasStmt.
	stmtList int64
	hasStmt  bool
}

// entryTop is what e, a unit's top DIE read by debug/dwarf, tells the
// unlisted walk.
func entryTop(e *dwarf.Entry) unitTop {
	top := unitTop{tag: e.Tag, ranged: e.Val(dwarf.AttrLowpc) != nil || e.Val(dwarf.AttrRanges) != nil}
	top.stmtList, top.hasStmt = e.Val(dwarf.AttrStmtList).(int64)
	return top
}

// readUnitTop reads the top DIE of the unit at off by the forms of its
// abbreviation, whose declaration is found by the pass that finds
// where the table ends (ensureAbbrevs). ok is false where it cannot
// say what debug/dwarf would (a damaged header or table, a form it does
// not read, a DW_AT_stmt_list of a form other than an offset's): the
// caller opens the unit then.
func (l *lazyDWARF) readUnitTop(off uint64) (top unitTop, ok bool) {
	h, err := l.readUnitHeader(off)
	if err != nil {
		return top, false
	}
	code, pos := l.topCode(h)
	if code == 0 {
		return top, false
	}
	t, err := l.ensureAbbrevs(h.abbrevOff, code)
	if err != nil || !t.parsed || t.declAt == 0 {
		return top, false
	}
	s, err := unitSkipper(l.info.buf, h, l.order)
	if err != nil {
		return top, false
	}
	_, sh, _, err := s.readDecl(l.abbrev.buf[:t.end], t.declAt-1, &shapeSlabs{})
	if err != nil {
		return top, false
	}
	top.tag = sh.tag
	for i, f := range sh.forms {
		next, err := s.value(pos, f, 0)
		if err != nil {
			return top, false
		}
		switch sh.attrs[i] {
		case dwarf.AttrLowpc, dwarf.AttrRanges:
			top.ranged = true
		case dwarf.AttrStmtList:
			if top.hasStmt {
				return top, false // which one debug/dwarf gives is its own
			}
			switch {
			case f == formSecOffset && s.offSize == 4, f == formData4:
				top.stmtList = int64(l.order.Uint32(l.info.buf[pos:next]))
			case f == formSecOffset, f == formData8:
				top.stmtList = int64(l.order.Uint64(l.info.buf[pos:next]))
			default:
				return top, false
			}
			top.hasStmt = true
		}
		pos = next
	}
	return top, true
}

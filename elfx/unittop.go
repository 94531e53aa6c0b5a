package elfx

import "debug/dwarf"

// The unlisted walk (unlisted.go) needs four things of each unit's top
// DIE: its tag, whether it has DW_AT_low_pc or DW_AT_ranges, and its
// DW_AT_stmt_list. LTO's early-debug units are most of the units a walk
// meets (gen-lto: 331 of 369) and have no code: opening each as a
// dwarf.Data of its own, which parses its whole abbreviation table,
// was a fifth of gen-lto's report. The top DIE is read instead by a
// lazy DIE skipper (dieskip.go), which checks the table and makes the
// shape of the one abbreviation the DIE uses; a dwarf.Data is made
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

// readUnitTop reads the top DIE of the unit at off with a lazy DIE
// skipper. ok is false where the skipper cannot say what debug/dwarf
// would (a damaged header or table, a form it does not read, a
// DW_AT_stmt_list of a form other than an offset's): the caller opens
// the unit then.
func (l *lazyDWARF) readUnitTop(off uint64) (top unitTop, ok bool) {
	h, err := l.readUnitHeader(off)
	if err != nil {
		return top, false
	}
	t, err := l.ensureAbbrevs(h.abbrevOff)
	if err != nil || !t.ok {
		return top, false
	}
	s, err := newLazyDIESkipper(l.info.buf, l.abbrev.buf[h.abbrevOff:t.end], h, l.order)
	if err != nil {
		return top, false
	}
	sh, pos, err := s.code(h.die)
	if err != nil || sh == nil {
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

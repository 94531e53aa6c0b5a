package elfx

import (
	"debug/dwarf"
	"fmt"
)

// dieCursor is how a scope walk (scopetree.go) reads a unit's DIEs.
type dieCursor interface {
	// next returns the next DIE the walk wants, a null entry (Tag 0)
	// where a list of children ends, or nil at the end.
	next() (*dwarf.Entry, error)
	// skipChildren skips the children of the DIE next returned last.
	// known says whether end, the offset after them, is known; else it
	// is the next DIE's.
	skipChildren() (end dwarf.Offset, known bool)
	// ranges gives the address ranges of e, the DIE next returned last,
	// as dwarf.Data.Ranges does.
	ranges(e *dwarf.Entry) ([][2]uint64, error)
}

// readerCursor reads every DIE with debug/dwarf, where no dieSkipper
// could be made (eager indexes).
type readerCursor struct {
	r *dwarf.Reader
	d *dwarf.Data
}

func (c readerCursor) next() (*dwarf.Entry, error) { return c.r.Next() }

func (c readerCursor) skipChildren() (dwarf.Offset, bool) {
	c.r.SkipChildren()
	return 0, false
}

func (c readerCursor) ranges(e *dwarf.Entry) ([][2]uint64, error) { return c.d.Ranges(e) }

// skipCursor steps over the DIEs a walk does not want, and over
// children it skips, with the unit's dieSkipper (dieskip.go); debug/dwarf
// decodes the others.
type skipCursor struct {
	r    *dwarf.Reader
	d    *dwarf.Data
	cu   *cuIndex // whose ranges decodes DW_AT_ranges (rangelist.go)
	s    *dieSkipper
	base dwarf.Offset // the section offset of the Reader's offset 0
	pos  uint64       // the section offset of the next DIE
	// children: the DIE returned last has children, which start at pos.
	children bool
	err      error // met while skipping: the next call returns it
	// made is a DIE read by the skipper, without its attributes: the
	// walk wants none of a namespace's or a class's (their names are
	// read when a frame's name needs them: scopequal.go), and of a
	// subprogram's only its addresses, pc. Decoding thousands of them,
	// their long linkage names copied out of .debug_str, was a third of
	// a Rust unit's walk. The walk keeps nothing of an entry but its
	// offset, so made is reused.
	made dwarf.Entry
	pc   pcPair
	// sib is where the children of the DIE returned last end, by its
	// DW_AT_sibling, where hasSib.
	sib    uint64
	hasSib bool
}

// newCursor is a cursor over the children of the DIE at off (an offset
// in cu.d) onwards.
func (cu *cuIndex) newCursor(off dwarf.Offset) (dieCursor, error) {
	r := cu.d.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("no DIE at %#x", off)
	}
	if cu.skip == nil {
		return readerCursor{r, cu.d}, nil
	}
	c := &skipCursor{r: r, d: cu.d, cu: cu, s: cu.skip, base: cu.base}
	sh, at, err := c.s.code(uint64(cu.base + off))
	if err == nil && sh != nil {
		c.pos, err = c.s.attrs(at, sh)
	}
	if err != nil || sh == nil || sh.tag != e.Tag {
		return readerCursor{r, cu.d}, nil // debug/dwarf reads it otherwise: follow it
	}
	return c, nil
}

func (c *skipCursor) next() (*dwarf.Entry, error) {
	if c.err != nil {
		return nil, c.err
	}
	for c.pos < c.s.end {
		sh, at, err := c.s.code(c.pos)
		if err != nil {
			return nil, err
		}
		if sh == nil {
			c.pos, c.children = at, false
			return &dwarf.Entry{}, nil
		}
		if !walkedTag(sh.tag) {
			if c.pos, err = c.s.tree(c.pos); err != nil {
				return nil, err
			}
			continue
		}
		off := dwarf.Offset(c.pos) - c.base
		pc, ok := pcPair{}, sh.tag != dwarf.TagInlinedSubroutine // wants its call site
		if sh.tag == dwarf.TagSubprogram {
			pc, ok = c.s.pcRange(at, sh)
		}
		if ok {
			if c.pos, err = c.s.attrs(at, sh); err != nil {
				return nil, err
			}
			c.made = dwarf.Entry{Offset: off, Tag: sh.tag, Children: sh.children}
			c.pc, c.children = pc, sh.children
			c.sib, c.hasSib = c.s.siblingAhead(at, c.pos, sh)
			return &c.made, nil
		}
		c.r.Seek(off)
		e, err := c.r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil || e.Offset != off || e.Tag != sh.tag {
			return nil, fmt.Errorf("DIE at %#x: read otherwise than its abbreviation says", off)
		}
		if c.pos, err = c.s.attrs(at, sh); err != nil {
			return nil, err
		}
		c.children = sh.children
		c.sib, c.hasSib = c.s.siblingAhead(at, c.pos, sh)
		return e, nil
	}
	return nil, nil
}

func (c *skipCursor) skipChildren() (dwarf.Offset, bool) {
	if c.children && c.err == nil {
		if c.hasSib {
			c.pos = c.sib
		} else {
			c.pos, c.err = c.s.children(c.pos)
		}
		c.children = false
	}
	if c.err != nil {
		return ^dwarf.Offset(0), true
	}
	return dwarf.Offset(c.pos) - c.base, true
}

func (c *skipCursor) ranges(e *dwarf.Entry) ([][2]uint64, error) {
	if e != &c.made {
		return c.cu.ranges(e)
	}
	if !c.pc.hasLow || !c.pc.hasHigh {
		return nil, nil
	}
	high := c.pc.high
	if c.pc.highConst {
		high += c.pc.low
	}
	return [][2]uint64{{c.pc.low, high}}, nil
}

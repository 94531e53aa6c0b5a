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
}

// readerCursor reads every DIE with debug/dwarf, where no dieSkipper
// could be made (eager indexes).
type readerCursor struct{ r *dwarf.Reader }

func (c readerCursor) next() (*dwarf.Entry, error) { return c.r.Next() }

func (c readerCursor) skipChildren() (dwarf.Offset, bool) {
	c.r.SkipChildren()
	return 0, false
}

// skipCursor steps over the DIEs a walk does not want, and over
// children it skips, with the unit's dieSkipper (dieskip.go); debug/dwarf
// decodes the others.
type skipCursor struct {
	r    *dwarf.Reader
	s    *dieSkipper
	base dwarf.Offset // the section offset of the Reader's offset 0
	pos  uint64       // the section offset of the next DIE
	// children: the DIE returned last has children, which start at pos.
	children bool
	err      error // met while skipping: the next call returns it
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
		return readerCursor{r}, nil
	}
	c := &skipCursor{r: r, s: cu.skip, base: cu.base}
	sh, at, err := c.s.code(uint64(cu.base + off))
	if err == nil && sh != nil {
		c.pos, err = c.s.attrs(at, sh)
	}
	if err != nil || sh == nil || sh.tag != e.Tag {
		return readerCursor{r}, nil // debug/dwarf reads it otherwise: follow it
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
		return e, nil
	}
	return nil, nil
}

func (c *skipCursor) skipChildren() (dwarf.Offset, bool) {
	if c.children && c.err == nil {
		c.pos, c.err = c.s.children(c.pos)
		c.children = false
	}
	if c.err != nil {
		return ^dwarf.Offset(0), true
	}
	return dwarf.Offset(c.pos) - c.base, true
}

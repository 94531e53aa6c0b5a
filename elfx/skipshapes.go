package elfx

import (
	"encoding/binary"
	"sync"
)

// dwz leaves a program's units one abbreviation table (gen-dwz: 4.7 KB
// for 330 units), which each unit's skipper parsed again: 5 of the
// report's 52 MB allocated. An eager skipper's shapes never change once
// made (newDIESkipper), and depend only on the table and on the sizes
// the unit's header sets: the units that read one table the same way
// share them.

// sharedShapes holds the shapes of a lazy index's eager skippers, by
// the table and sizes they were made for.
type sharedShapes struct {
	mu      sync.Mutex
	byTable map[shapesKey]*dieSkipper
}

// shapesKey is an abbreviation table (its extent in .debug_abbrev) and
// the sizes of the forms its shapes count.
type shapesKey struct {
	start, end                     uint64
	addrSize, offSize, refAddrSize int
}

// skipper returns newDIESkipper's skipper for the unit of header h whose
// table lies at [start, end) of .debug_abbrev: the shapes of one made
// before for the same table and sizes, else new ones.
func (c *sharedShapes) skipper(info, abbrev []byte, start, end uint64, h unitHeader, order binary.ByteOrder) *dieSkipper {
	s, err := unitSkipper(info, h, order)
	if err != nil {
		return nil
	}
	key := shapesKey{start: start, end: end, addrSize: s.addrSize, offSize: s.offSize, refAddrSize: s.refAddrSize}
	c.mu.Lock()
	made := c.byTable[key]
	c.mu.Unlock()
	if made != nil {
		s.small, s.large = made.small, made.large
		return s
	}
	if s, err = newDIESkipper(info, abbrev[start:end], h, order); err != nil {
		return nil
	}
	c.mu.Lock()
	if c.byTable == nil {
		c.byTable = map[shapesKey]*dieSkipper{}
	}
	c.byTable[key] = s
	c.mu.Unlock()
	return s
}

// An LTO program's early-debug units have tables of their own, whose
// declarations are mostly the same few hundred (a base type's, a
// member's, a parameter's): the origin readers (originreader.go) of
// gen-lto's 330 units made 4.6 MB of shapes, one for each declaration
// a path walk met in each unit. A shape depends only on the bytes of
// its declaration after the code and on the sizes the unit's header
// sets: lazy skippers given a declShapes share them.

// declShapes holds lazy skippers' shapes by their declarations.
type declShapes struct {
	mu    sync.Mutex
	sizes map[formSizes]map[string]*dieShape
}

// formSizes are the sizes of the forms a shape counts.
type formSizes struct {
	addrSize, offSize, refAddrSize int
}

// declShape makes the shape of the declaration at p of a lazy
// skipper's table, or finds the one made for the same declaration and
// sizes; nil where the declaration cannot be read.
func (s *dieSkipper) declShape(p uint64) *dieShape {
	if s.byDecl == nil {
		_, sh, _, _ := s.readDecl(s.abbrev, p, &s.made)
		return sh
	}
	_, _, end, err := s.readDecl(s.abbrev, p, nil) // checked, and its end found
	if err != nil {
		return nil
	}
	_, n := readULEB(s.abbrev[p:])
	decl := s.abbrev[p+uint64(n) : end]
	key := formSizes{s.addrSize, s.offSize, s.refAddrSize}
	c := s.byDecl
	c.mu.Lock()
	defer c.mu.Unlock()
	if sh := c.sizes[key][string(decl)]; sh != nil {
		return sh
	}
	_, sh, _, _ := s.readDecl(s.abbrev, p, &s.made)
	if sh != nil {
		if c.sizes == nil {
			c.sizes = map[formSizes]map[string]*dieShape{}
		}
		if c.sizes[key] == nil {
			c.sizes[key] = map[string]*dieShape{}
		}
		c.sizes[key][string(decl)] = sh
	}
	return sh
}

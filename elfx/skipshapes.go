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

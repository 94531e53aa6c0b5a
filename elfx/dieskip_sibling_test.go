package elfx

import (
	"encoding/binary"
	"testing"
)

// TestDIESkipperFollowsSibling: a DIE's children are stepped over by its
// DW_AT_sibling where GCC gave one, without reading them (a C++ unit's
// classes and a dwz partial unit's declarations: the generated program
// after dwz spent a quarter of its report reading them). Here the
// children are bytes no abbreviation describes: reading them fails.
func TestDIESkipperFollowsSibling(t *testing.T) {
	le := binary.LittleEndian
	abbrev := []byte{
		1, 0x11, 1, 0, 0, // compile_unit, children
		2, 0x2e, 1, 0x01, 0x13, 0x03, 0x08, 0, 0, // subprogram, children: sibling (ref4), name (string)
		3, 0x34, 0, 0x03, 0x08, 0, 0, // variable: name (string)
		0,
	}
	var info []byte
	info = le.AppendUint32(info, 0) // unit_length, set below
	info = le.AppendUint16(info, 4)
	info = le.AppendUint32(info, 0) // abbreviation offset
	info = append(info, 8)          // address size
	die := uint64(len(info))
	info = append(info, 1) // the unit's DIE
	sub := uint64(len(info))
	info = append(info, 2, 0, 0, 0, 0, 'f', 0)
	children := len(info)
	info = append(info, 0xff, 0xff, 0xff, 0xff, 0x7f) // no abbreviation
	sib := uint64(len(info))
	le.PutUint32(info[sub+1:], uint32(sib)) // relative to the unit, at 0
	info = append(info, 3, 'v', 0, 0)       // the variable, then the unit's end of children
	le.PutUint32(info, uint32(len(info)-4))
	h := unitHeader{end: uint64(len(info)), version: 4, addrSize: 8, die: die}
	s, err := newDIESkipper(info, abbrev, h, le)
	if err != nil {
		t.Fatal(err)
	}
	s.unit, s.unitKnown = 0, true
	end, err := s.tree(sub)
	if err != nil || end != sib {
		t.Errorf("stepping over the subprogram: %#x, %v; want its sibling at %#x (children at %#x unread)", end, err, sib, children)
	}
	// The unit's children: the subprogram's skipped, the variable, the
	// null entry.
	end, err = s.children(sub)
	if err != nil || end != uint64(len(info)) {
		t.Errorf("stepping over the unit's children: %#x, %v; want the unit's end %#x", end, err, len(info))
	}
	// Without the unit's offset no sibling is followed, and the
	// children are read.
	s.unitKnown = false
	if _, err := s.tree(sub); err == nil {
		t.Error("the children no abbreviation describes were read without an error")
	}
}

package elfx

import (
	"encoding/binary"
	"testing"
)

// TestSkipperShapesShared: units that read one abbreviation table the
// same way (dwz's) share their eager skippers' shapes; a unit reading it
// with other sizes gets its own.
func TestSkipperShapesShared(t *testing.T) {
	// DW_TAG_compile_unit without children, one DW_AT_low_pc
	// DW_FORM_addr: its fixed size is the unit's address size.
	abbrev := []byte{1, 0x11, 0, 0x11, 0x01, 0, 0, 0}
	unit := func(addrSize byte) []byte {
		die := append([]byte{1}, make([]byte, addrSize)...)
		length := 2 + 4 + 1 + len(die)
		return append([]byte{byte(length), 0, 0, 0, 4, 0, 0, 0, 0, 0, addrSize}, die...)
	}
	var info []byte
	for _, size := range []byte{8, 8, 4} {
		info = append(info, unit(size)...)
	}
	stream := func(name string, b []byte) *sectionStream {
		return &sectionStream{name: name, buf: b, done: len(b)}
	}
	l := &lazyDWARF{
		name:   "shapes",
		order:  binary.LittleEndian,
		info:   stream(".debug_info", info),
		line:   stream(".debug_line", nil),
		abbrev: stream(".debug_abbrev", abbrev),
		sec:    make([][]byte, len(dwarfSections)),
		units:  map[uint64]*cuIndex{},
	}
	var skippers []*dieSkipper
	for _, cu := range l.walkUnits() {
		if err := cu.open(); err != nil {
			t.Fatalf("unit %#x: %v", cu.off, err)
		}
		s := l.newSkipper(cu, false)
		if s == nil || s.shape(1) == nil {
			t.Fatalf("unit %#x: no skipper", cu.off)
		}
		skippers = append(skippers, s)
	}
	if len(skippers) != 3 {
		t.Fatalf("%d units, want 3", len(skippers))
	}
	if a, b := skippers[0].shape(1), skippers[1].shape(1); a != b || a.fixed != 8 {
		t.Errorf("two units of one table and sizes: shapes %p (fixed %d) and %p", a, a.fixed, b)
	}
	if c := skippers[2].shape(1); c == skippers[0].shape(1) || c.fixed != 4 {
		t.Errorf("a unit of 4-byte addresses: shape %p (fixed %d), the others' %p", c, c.fixed, skippers[0].shape(1))
	}
	for i, s := range skippers {
		if s.unit != uint64(l.spans[i].start) || s.end != l.spans[i].end {
			t.Errorf("skipper %d: unit %#x to %#x, want %#x to %#x", i, s.unit, s.end, l.spans[i].start, l.spans[i].end)
		}
	}
}

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
	l := bytesLazyDWARF(info, abbrev)
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

// TestDeclShapesShared: lazy skippers given one declShapes (the origin
// readers of an LTO program's early-debug units) share the shape of a
// declaration their tables both have, whatever its code; a unit of
// other sizes, or another declaration, gets its own; a skipper without
// one makes its own.
func TestDeclShapesShared(t *testing.T) {
	// Code 1 in the first table, 2 in the second (after another
	// declaration): DW_TAG_variable without children, DW_AT_name
	// DW_FORM_string and DW_AT_location DW_FORM_addr.
	first := []byte{1, 0x34, 0, 0x03, 0x08, 0x02, 0x01, 0, 0, 0}
	second := []byte{1, 0x24, 0, 0x0b, 0x0b, 0, 0, 2, 0x34, 0, 0x03, 0x08, 0x02, 0x01, 0, 0, 0}
	var shared declShapes
	shape := func(table []byte, code uint64, addrSize uint8, byDecl *declShapes) *dieShape {
		t.Helper()
		t2 := abbrevTable(table, 0)
		s, err := newDeclaredDIESkipper(nil, table, t2.decls, unitHeader{version: 4, addrSize: addrSize}, binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		s.byDecl = byDecl
		sh := s.declShape(uint64(t2.decls[code] - 1))
		if sh == nil || sh.tag != 0x34 || sh.fixed != -1 || len(sh.forms) != 2 {
			t.Fatalf("code %d: shape %+v", code, sh)
		}
		return sh
	}
	a := shape(first, 1, 8, &shared)
	if b := shape(second, 2, 8, &shared); b != a {
		t.Error("the same declaration in two tables: two shapes")
	}
	if c := shape(second, 2, 4, &shared); c == a {
		t.Error("a unit of 4-byte addresses took the shape made for 8-byte ones")
	}
	if d := shape(first, 1, 8, nil); d == a {
		t.Error("a skipper without declShapes took a shared shape")
	}
	if n := len(shared.sizes[formSizes{8, 4, 4}]); n != 1 {
		t.Errorf("%d shapes kept for one declaration", n)
	}
}

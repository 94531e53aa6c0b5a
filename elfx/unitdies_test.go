package elfx

import (
	"debug/dwarf"
	"testing"
)

// eachUnitDIE opens the first units of x's lazy index (all for 0) and
// calls visit with each DIE debug/dwarf reads from the unit's top DIE
// on: the tests that hold a reading of ours to debug/dwarf's.
func eachUnitDIE(t *testing.T, x *dwarfIndex, units int, visit func(cu *cuIndex, e *dwarf.Entry)) {
	t.Helper()
	for i, cu := range x.allUnits() {
		if units > 0 && i >= units {
			break
		}
		if err := cu.open(); err != nil {
			t.Fatalf("unit at %#x: %v", cu.off, err)
		}
		readDIEs(t, cu, func(e *dwarf.Entry) bool {
			visit(cu, e)
			return true
		})
	}
}

// readDIEs calls visit with each DIE debug/dwarf reads from cu's top
// DIE on, until the reader's end or visit returns false.
func readDIEs(t *testing.T, cu *cuIndex, visit func(e *dwarf.Entry) bool) {
	t.Helper()
	r := cu.d.Reader()
	r.Seek(cu.entry.Offset)
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatalf("unit at %#x: %v", cu.off, err)
		}
		if e == nil || !visit(e) {
			return
		}
	}
}

package elfx

import (
	"debug/dwarf"
	"testing"
)

// TestGiveBackUnits: units read and never opened have their pages
// given back once a batch's worth waits, neighbours in one range, and an
// opened unit's are kept; a compressed section's buffer is never given
// back this way.
func TestGiveBackUnits(t *testing.T) {
	const unit = 1 << 20 // two units make a batch
	info := make([]byte, 4*unit)
	l := bytesLazyDWARF(info, nil)
	var given [][2]int
	l.release = func(b []byte) {
		lo := len(info) - cap(b)
		given = append(given, [2]int{lo, lo + len(b)})
	}
	units := []*cuIndex{{off: 0, lazy: l}, {off: unit, lazy: l}, {off: 2 * unit, lazy: l}, {off: 3 * unit, lazy: l}}
	units[1].opened.Store(true)
	l.giveBackUnit(units[0], unit)
	if len(given) != 0 {
		t.Fatalf("given back before a batch waited: %v", given)
	}
	l.giveBackUnit(units[1], 2*unit)
	if want := [][2]int{{0, unit}}; len(given) != 1 || given[0] != want[0] {
		t.Fatalf("given back %v; want the unread unit's %v, not the opened one's", given, want)
	}
	// Queued out of order, two neighbours are given back in one call.
	l.giveBackUnit(units[3], 4*unit)
	l.giveBackUnit(units[2], 3*unit)
	if len(given) != 2 || given[1] != [2]int{2 * unit, 4 * unit} {
		t.Fatalf("given back %v; want the last two units in one range", given)
	}
	// An opened unit between others splits their run: four units of a
	// quarter of a batch each.
	given = nil
	for _, u := range units {
		l.giveBackUnit(u, uint64(u.off)+unit/2)
	}
	if want := [][2]int{{0, unit / 2}, {2 * unit, 2*unit + unit/2}, {3 * unit, 3*unit + unit/2}}; len(given) != 3 || given[0] != want[0] || given[1] != want[1] || given[2] != want[2] {
		t.Fatalf("given back %v; want %v", given, want)
	}
	given = nil
	for i, u := range units {
		u.off = dwarf.Offset(i * unit / 2)
		l.giveBackUnit(u, uint64(u.off)+unit/2)
	}
	if want := [][2]int{{0, unit / 2}, {unit, 2 * unit}}; len(given) != 2 || given[0] != want[0] || given[1] != want[1] {
		t.Fatalf("given back %v; want %v", given, want)
	}
	l.info.raw = []byte{1} // compressed: the stream's buffer
	given = nil
	for _, u := range units {
		l.giveBackUnit(u, uint64(u.off)+unit)
	}
	if len(given) != 0 {
		t.Errorf("a compressed section's buffer given back: %v", given)
	}
}

// TestEarlyDebugUnitsGivenBack: naming every instruction of the LTO
// units program queues its early-debug units (read by origin readers,
// never opened) to have their pages given back, and none with code.
func TestEarlyDebugUnitsGivenBack(t *testing.T) {
	exe := unitsProgram(t, "lto", false, "-flto")
	o := mustOpen(t, exe)
	x, err := o.newLazyDWARFIndex()
	if err != nil || x == nil {
		t.Fatalf("lazy index: %v, %v", x, err)
	}
	if x.lazy.release == nil {
		t.Fatal("the lazy index gives no pages back")
	}
	for _, a := range instructionAddrs(t, exe, func(string) bool { return true }) {
		x.sourceFrames(a, o)
	}
	queued := map[*cuIndex]bool{}
	for _, u := range x.lazy.pages.pending {
		queued[u.cu] = true
		if top, ok := x.lazy.readUnitTop(uint64(u.cu.off)); !ok || top.ranged {
			t.Errorf("the unit at %#x, with code, queued to be given back", u.cu.off)
		}
	}
	for _, cu := range x.lazy.units {
		if cu.origins != nil && cu.origins.codeless && !queued[cu] {
			t.Errorf("the early-debug unit at %#x, read by its origin reader, not queued to be given back", cu.off)
		}
	}
	if len(queued) == 0 {
		t.Error("no unit queued to be given back: the test proves nothing")
	}
}

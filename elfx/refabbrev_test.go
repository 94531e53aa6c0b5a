package elfx

import (
	"runtime"
	"slices"
	"testing"
)

// TestRefAddrUnitsReadInPlace opens every unit of a program built with
// -flto, whose code's units refer to the early-debug units' DIEs with
// DW_FORM_ref_addr: debug/dwarf must read them where they lie in
// .debug_info, not in copies (which were most of a big LTO program's
// peak RSS), so opening them allocates far less than their sizes.
func TestRefAddrUnitsReadInPlace(t *testing.T) {
	// Many small functions, so that the units' DIEs outweigh what
	// opening a unit allocates whatever its size (its abbreviations).
	exe := buildManyFunctions(t, 1000, "-O2", "-g", "-flto")
	o := mustOpen(t, exe)
	x, err := o.newLazyDWARFIndex()
	if err != nil || x == nil {
		t.Fatalf("lazy index of %s: %v, %v", exe, x, err)
	}
	l := x.lazy
	var cus []*cuIndex
	size := map[*cuIndex]uint64{}
	for off := uint64(0); off < uint64(len(l.info.buf)); {
		cu, err := l.findUnit(off)
		if err != nil {
			t.Fatal(err)
		}
		h, err := l.readUnitHeader(off)
		if err != nil {
			t.Fatal(err)
		}
		cus = append(cus, cu)
		off = h.end
		size[cu] = h.end - uint64(cu.off)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, cu := range cus {
		if err := cu.open(); err != nil {
			t.Fatalf("unit %#x: %v", cu.off, err)
		}
	}
	runtime.ReadMemStats(&after)
	refAddr, refSize := 0, uint64(0)
	for _, cu := range cus {
		if cu.refAddr {
			refAddr++
			refSize += size[cu]
		}
	}
	if refAddr == 0 || refSize < 32<<10 {
		t.Fatalf("%d units with DW_FORM_ref_addr, %d bytes: the test proves nothing", refAddr, refSize)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d units, %d with DW_FORM_ref_addr (%d bytes); opening them allocated %d bytes", len(cus), refAddr, refSize, allocated)
	if allocated >= refSize/2 {
		t.Errorf("opening the units allocated %d bytes, against %d in the units with DW_FORM_ref_addr: copies of them", allocated, refSize)
	}
}

// TestRefAbbrevsOverlap: the shared copy of .debug_abbrev holds each
// table once, read one way; a table overlapping another (crafted
// sections), or the same read with another size, is refused, for the
// unit to be read from copies of its own.
func TestRefAbbrevsOverlap(t *testing.T) {
	// Two tables of one abbreviation each: code 1, DW_TAG_compile_unit,
	// no children, DW_AT_specification (0x47) DW_FORM_ref_addr.
	table := []byte{1, 0x11, 0, 0x47, formRefAddr, 0, 0, 0}
	abbrev := &sectionStream{name: ".debug_abbrev", buf: append(slices.Clone(table), table...)}
	abbrev.done = len(abbrev.buf)
	var r refAbbrevs
	first := abbrevTable(abbrev.buf, 0)
	second := abbrevTable(abbrev.buf, 8)
	if !first.ok || !second.ok || len(first.refAddr) != 1 || len(second.refAddr) != 1 {
		t.Fatalf("tables not parsed: %+v %+v", first, second)
	}
	sec, ok := r.section(abbrev, 0, first, formData4)
	if !ok || sec[4] != formData4 || abbrev.buf[4] != formRefAddr {
		t.Fatalf("first table: ok %v, rewritten %#x, section's %#x", ok, sec[4], abbrev.buf[4])
	}
	if _, ok := r.section(abbrev, 0, first, formData4); !ok {
		t.Error("the same table read the same way again: refused")
	}
	if _, ok := r.section(abbrev, 0, first, formData8); ok {
		t.Error("the same table read with DW_FORM_ref_addr of another size: accepted")
	}
	inside := abbrevTable(abbrev.buf, 3)
	inside.parsed, inside.end = true, 6
	if _, ok := r.section(abbrev, 3, inside, formData4); ok {
		t.Error("a table inside another: accepted")
	}
	sec, ok = r.section(abbrev, 8, second, formData8)
	if !ok || sec[12] != formData8 || sec[4] != formData4 {
		t.Errorf("second table: ok %v, rewritten %#x, first's %#x", ok, sec[12], sec[4])
	}
}

package elfx

import (
	"debug/dwarf"
	"encoding/binary"
	"slices"
	"testing"
)

// TestRangeListsAsDWARFData: every DW_AT_ranges of the units with code
// of the units program (DWARF 5 and 4, -O2: inlined calls with ranges)
// and of python3.11-dbg decodes to what dwarf.Data.Ranges gives, and
// most are decoded without it.
func TestRangeListsAsDWARFData(t *testing.T) {
	for _, tc := range []struct {
		name  string
		open  func(t *testing.T) *Object
		units int // at most this many units with code are read (0: all)
	}{
		{"dwarf5", func(t *testing.T) *Object { return mustOpen(t, unitsProgram(t, "plain", false)) }, 0},
		{"dwarf4", func(t *testing.T) *Object { return mustOpen(t, unitsProgram(t, "dwarf4", false, "-gdwarf-4")) }, 0},
		{"lto", func(t *testing.T) *Object { return mustOpen(t, unitsProgram(t, "lto", false, "-flto")) }, 0},
		{"python3.11-dbg", pythonWithDebug, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.open(t)
			x, err := o.dwarfIndex()
			if err != nil || x == nil || x.lazy == nil {
				t.Fatalf("lazy index: %v, %v", x, err)
			}
			withRanges, decoded := 0, 0
			eachUnitDIE(t, x, tc.units, func(cu *cuIndex, e *dwarf.Entry) {
				if e.Tag == dwarf.TagCompileUnit || e.AttrField(dwarf.AttrRanges) == nil {
					return
				}
				withRanges++
				want, werr := cu.d.Ranges(e)
				got, ok := cu.rangeList(e)
				if !ok {
					return
				}
				decoded++
				if werr != nil || !slices.Equal(got, want) {
					t.Errorf("unit at %#x, DIE %#x: decoded %#x; dwarf.Data %#x, %v", cu.off, e.Offset, got, want, werr)
				}
			})
			t.Logf("%d DIEs with DW_AT_ranges, %d decoded without dwarf.Data", withRanges, decoded)
			if withRanges == 0 || decoded < withRanges*9/10 {
				t.Errorf("%d of %d DIEs with DW_AT_ranges decoded without dwarf.Data", decoded, withRanges)
			}
		})
	}
}

// rangesUnit is a unit of one compile unit DIE (DW_AT_low_pc base) with
// one child whose DW_AT_ranges (DW_FORM_sec_offset) is off, in DWARF 5
// (rnglists) or 4 (.debug_ranges), with addresses of addrSize bytes,
// and debug/dwarf's reading of the child with sec as the list section.
func rangesUnit(t *testing.T, sec []byte, off uint32, base uint64, v5 bool, addrSize byte) (*dwarf.Data, *dwarf.Entry) {
	abbrev := []byte{1, 0x11, 1, 0x11, 0x01, 0, 0, 2, 0x2e, 0, 0x55, 0x17, 0, 0, 0}
	var body []byte
	if v5 {
		body = []byte{5, 0, 1, addrSize, 0, 0, 0, 0}
	} else {
		body = []byte{4, 0, 0, 0, 0, 0, addrSize}
	}
	body = append(body, 1)
	body = binary.LittleEndian.AppendUint64(body, base)[:len(body)+int(addrSize)]
	body = append(body, 2)
	body = binary.LittleEndian.AppendUint32(body, off)
	body = append(body, 0)
	info := binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
	info = append(info, body...)
	var ranges []byte
	if !v5 {
		ranges = sec
	}
	d, err := dwarf.New(abbrev, nil, nil, info, nil, nil, ranges, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v5 && sec != nil {
		if err := d.AddSection(".debug_rnglists", sec); err != nil {
			t.Fatal(err)
		}
	}
	r := d.Reader()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	e, err := r.Next()
	if err != nil || e == nil {
		t.Fatalf("the child: %v, %v", e, err)
	}
	return d, e
}

// craftedRngList is a DWARF 5 range list of every entry decoded here;
// craftedRanges a DWARF 4 one with a base address selection.
func craftedRngList() []byte {
	var b []byte
	b = append(b, rleOffsetPair, 0x10, 0x20, rleBaseAddress)
	b = binary.LittleEndian.AppendUint64(b, 0x5000)
	b = append(b, rleOffsetPair, 0, 8, rleStartLength)
	b = binary.LittleEndian.AppendUint64(b, 0x7000)
	b = append(b, 0x40, rleStartEnd)
	b = binary.LittleEndian.AppendUint64(b, 0x8000)
	b = binary.LittleEndian.AppendUint64(b, 0x8010)
	return append(b, rleEndOfList)
}

func craftedRanges() []byte {
	var b []byte
	for _, a := range []uint64{0x10, 0x20, ^uint64(0), 0x3000, 0, 0x40, 0, 0} {
		b = binary.LittleEndian.AppendUint64(b, a)
	}
	return b
}

// TestRangeListsCrafted: the crafted lists decode to what debug/dwarf
// gives.
func TestRangeListsCrafted(t *testing.T) {
	d, e := rangesUnit(t, craftedRngList(), 0, 0x1000, true, 8)
	want, err := d.Ranges(e)
	got, ok := decodeRngList(craftedRngList(), 0, 0x1000, 8, binary.LittleEndian)
	if !ok || err != nil || len(want) != 4 || !slices.Equal(got, want) {
		t.Errorf("DWARF 5: decoded %#x, %v; debug/dwarf %#x, %v", got, ok, want, err)
	}
	d, e = rangesUnit(t, craftedRanges(), 0, 0x1000, false, 8)
	want, err = d.Ranges(e)
	got, ok = decodeRanges(craftedRanges(), 0, 0x1000, 8, binary.LittleEndian)
	if !ok || err != nil || len(want) != 2 || !slices.Equal(got, want) {
		t.Errorf("DWARF 4: decoded %#x, %v; debug/dwarf %#x, %v", got, ok, want, err)
	}
}

// FuzzRangeLists: a range list decoded here (decodeRngList,
// decodeRanges) is what debug/dwarf decodes from the same bytes, or is
// left to it.
func FuzzRangeLists(f *testing.F) {
	f.Add(craftedRngList(), uint32(0), uint64(0x1000), true, true)
	f.Add(craftedRanges(), uint32(0), uint64(0x1000), false, true)
	f.Add([]byte{1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint32(0), uint64(0x100), false, false)
	f.Fuzz(func(t *testing.T, sec []byte, off uint32, base uint64, v5, addr8 bool) {
		addrSize := byte(4)
		if addr8 {
			addrSize = 8
		} else {
			base = uint64(uint32(base))
		}
		d, e := rangesUnit(t, sec, off, base, v5, addrSize)
		var got [][2]uint64
		var ok bool
		if v5 {
			got, ok = decodeRngList(sec, uint64(off), base, int(addrSize), binary.LittleEndian)
		} else {
			got, ok = decodeRanges(sec, uint64(off), base, int(addrSize), binary.LittleEndian)
		}
		if !ok {
			return
		}
		want, err := d.Ranges(e)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("decoded %#x; debug/dwarf %#x, %v", got, want, err)
		}
	})
}

package elfx

import (
	"debug/dwarf"
	"encoding/binary"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// dieSkipBinaries builds the programs whose units the skipper is held
// to debug/dwarf on: Rust (no DW_AT_sibling, functions in modules), C++
// with templates, and C++ built with LTO (DW_FORM_ref_addr between
// units).
func dieSkipBinaries(t *testing.T) map[string]string {
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "e2e", "testdata", "progs"))
	if err != nil {
		t.Fatal(err)
	}
	var lto []string
	for _, s := range []string{"units_main.cc", "units_walk.cc", "units_leaf.cc"} {
		lto = append(lto, filepath.Join(src, s))
	}
	ltoExe := filepath.Join(dir, "units")
	run(t, dir, "g++", append([]string{"-O2", "-g", "-flto", "-o", ltoExe}, lto...)...)
	return map[string]string{
		"rust": compile(t, dir, "rustc", "prog", "rs", rustProgram, "-g", "-C", "opt-level=1"),
		"cxx":  compile(t, dir, "g++", "templates", "cc", cxxProgram, "-O2", "-g"),
		"lto":  ltoExe,
	}
}

// TestDIESkipperMatchesReader steps over every DIE of every unit of
// real binaries (and of libc's debug file, zlib-compressed, when
// installed) with the skipper and checks it lands where debug/dwarf
// reads the next DIE; then that each unit's scope walks, and the walks
// of every function's subtree, give the same scopes skipping DIEs as
// reading them all (scopecursor.go).
func TestDIESkipperMatchesReader(t *testing.T) {
	for name, file := range dieSkipBinaries(t) {
		t.Run(name, func(t *testing.T) { checkSkipper(t, mustOpen(t, file), 1) })
	}
	t.Run("libc-dbg", func(t *testing.T) {
		checkSkipper(t, mustOpen(t, libcWithDebug(t).DebugFile()), 20) // 200 of its 4,000 units
	})
}

// checkSkipper compares skipping with reading on every every-th unit
// of o's lazy index.
func checkSkipper(t *testing.T, o *Object, every int) {
	x, err := o.newLazyDWARFIndex()
	if err != nil || x == nil {
		t.Fatalf("no lazy index: %v", err)
	}
	dies, walked, units := 0, 0, 0
	for i, cu := range x.allUnits() {
		if i%every != 0 {
			continue
		}
		if err := cu.load(x); err != nil {
			t.Fatalf("unit at %#x: %v", cu.off, err)
		}
		if cu.skip == nil {
			t.Fatalf("unit at %#x: no skipper", cu.off)
		}
		units++
		n, w := skipAlongReader(t, cu)
		dies, walked = dies+n, walked+w
		compareWalks(t, x, cu)
	}
	t.Logf("%d units, %d DIEs, %d of them of the tags the walks read", units, dies, walked)
	if units == 0 || walked == 0 || walked == dies {
		t.Errorf("%d units, %d DIEs, %d of them of the tags the walks read: nothing compared or nothing skipped", units, dies, walked)
	}
}

// skipAlongReader reads the unit with debug/dwarf and checks that each
// DIE starts where the skipper stepped to, with the tag its
// abbreviation gives. It returns how many DIEs the unit has and how
// many of them have a tag the walks read.
func skipAlongReader(t *testing.T, cu *cuIndex) (dies, walked int) {
	t.Helper()
	s := cu.skip
	r := cu.d.Reader()
	r.Seek(cu.entry.Offset)
	pos := uint64(cu.base + cu.entry.Offset)
	for depth := 0; ; {
		e, err := r.Next()
		if err != nil {
			t.Fatalf("unit at %#x: %v", cu.off, err)
		}
		if e == nil {
			return
		}
		sh, at, err := s.code(pos)
		if err != nil {
			t.Fatalf("unit at %#x: %v", cu.off, err)
		}
		if e.Tag == 0 {
			if sh != nil {
				t.Fatalf("unit at %#x: null entry, the skipper reads a DIE at %#x", cu.off, pos)
			}
			pos = at
			if depth--; depth <= 0 {
				return
			}
			continue
		}
		if uint64(cu.base+e.Offset) != pos || sh == nil || sh.tag != e.Tag || sh.children != e.Children {
			t.Fatalf("unit at %#x: DIE %v at %#x, the skipper at %#x reads %+v", cu.off, e.Tag, cu.base+e.Offset, pos, sh)
		}
		if pos, err = s.attrs(at, sh); err != nil {
			t.Fatalf("unit at %#x: %v", cu.off, err)
		}
		dies++
		if walkedTag(e.Tag) {
			walked++
		}
		if e.Children {
			depth++
		} else if depth == 0 {
			return
		}
	}
}

// compareWalks loads the unit again twice, skipping DIEs and reading
// them all, and compares what the walks found.
func compareWalks(t *testing.T, x *dwarfIndex, cu *cuIndex) {
	t.Helper()
	skipping := &cuIndex{off: cu.off, lazy: cu.lazy}
	reading := &cuIndex{off: cu.off, lazy: cu.lazy}
	if err := reading.open(); err != nil {
		t.Fatal(err)
	}
	reading.abbrevEnd = 0 // no skipper
	serr, rerr := skipping.load(x), reading.load(x)
	if skipping.skip == nil || reading.skip != nil {
		t.Fatalf("unit at %#x: a skipper skipping: %v; reading: %v", cu.off, skipping.skip != nil, reading.skip != nil)
	}
	if (serr != nil) != (rerr != nil) {
		t.Fatalf("unit at %#x: skipping: %v; reading: %v", cu.off, serr, rerr)
	}
	if !sameScopes(skipping.scopes, reading.scopes) || !sameQuals(skipping, reading, skipping.quals, reading.quals, skipping.qualNodes, reading.qualNodes) || len(skipping.bodies) != len(reading.bodies) {
		t.Fatalf("unit at %#x: the walks differ: %d scopes, %d subtrees skipping; %d, %d reading", cu.off, len(skipping.scopes), len(skipping.bodies), len(reading.scopes), len(reading.bodies))
	}
	info := cu.lazy.info.buf
	for i, sb := range skipping.bodies {
		rb := reading.bodies[i]
		if sb.start != rb.start || sb.scope != rb.scope || sb.qual != rb.qual {
			t.Fatalf("unit at %#x: subtree %d: %+v skipping, %+v reading", cu.off, i, sb, rb)
		}
		// The reader learns where a subtree ends from the next DIE it
		// reads; the skipper knows: only null entries lie between.
		if sb.end > rb.end {
			t.Fatalf("unit at %#x: subtree at %#x ends at %#x skipping, %#x reading", cu.off, sb.start, sb.end, rb.end)
		}
		if rb.end != ^dwarf.Offset(0) {
			for p := cu.base + sb.end; p < cu.base+rb.end; p++ {
				if info[p] != 0 {
					t.Fatalf("unit at %#x: subtree at %#x ends at %#x skipping, %#x reading, a DIE between", cu.off, sb.start, sb.end, rb.end)
				}
			}
		}
		serr, rerr := skipping.expand(x, sb), reading.expand(x, rb)
		if (serr != nil) != (rerr != nil) || !sameScopes(sb.tree, rb.tree) || !reflect.DeepEqual(sb.roots, rb.roots) || !sameQuals(skipping, reading, sb.quals, rb.quals, sb.qualNodes, rb.qualNodes) {
			t.Fatalf("unit at %#x: the walks of the subtree at %#x differ (%v, %v)", cu.off, sb.start, serr, rerr)
		}
	}
}

// sameQuals compares the names around the subprograms two walks
// recorded, as the names are read.
func sameQuals(a, b *cuIndex, qa, qb []qualAt, na, nb []qualNode) bool {
	if len(qa) != len(qb) || !reflect.DeepEqual(na, nb) {
		return false
	}
	for i := range qa {
		if qa[i].off != qb[i].off || a.qualName(na, qa[i].node) != b.qualName(nb, qb[i].node) {
			return false
		}
	}
	return true
}

// sameScopes compares scopes but for their subtrees' bookkeeping.
func sameScopes(a, b []scope) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if (x.body == nil) != (y.body == nil) {
			return false
		}
		x.body, y.body = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// FuzzDIESkipper feeds the skipper a unit and an abbreviation table:
// it must not panic, read outside the unit, or stop short of progress.
func FuzzDIESkipper(f *testing.F) {
	// A unit (DWARF 4, 64-bit addresses) with a compile unit holding a
	// subprogram with a string name and a child, and its table.
	f.Add([]byte{1, 'a', 0, 2, 0x10, 0, 0, 0, 3, 4, 0, 0}, []byte{1, 0x11, 1, 3, 8, 0, 0, 2, 0x2e, 1, 0x11, 1, 0, 0, 3, 0x34, 0, 0x02, 0x18, 0, 0, 0}, uint8(4))
	f.Add([]byte{1, 1, 2, 0xff, 0x7f, 0, 0}, []byte{1, 0x11, 1, 0x39, 0x16, 0, 0, 2, 0x2e, 0, 0x3b, 0x21, 5, 0x0b, 0x0a, 0, 0, 0}, uint8(5))
	f.Fuzz(func(t *testing.T, info, abbrev []byte, version uint8) {
		h := unitHeader{end: uint64(len(info)), version: uint16(version), addrSize: 8}
		s, err := newDIESkipper(info, abbrev, h, binary.LittleEndian)
		lazy, lerr := newLazyDIESkipper(info, abbrev, h, binary.LittleEndian)
		if (err == nil) != (lerr == nil) {
			t.Fatalf("eager skipper: %v; lazy: %v", err, lerr)
		}
		if err != nil {
			return
		}
		for pos := uint64(0); pos < s.end; {
			next, err := s.tree(pos)
			lnext, lerr := lazy.tree(pos)
			if next != lnext || (err == nil) != (lerr == nil) {
				t.Fatalf("DIE at %#x: eager skipper to %#x (%v), lazy to %#x (%v)", pos, next, err, lnext, lerr)
			}
			if err != nil {
				return
			}
			if next <= pos || next > s.end {
				t.Fatalf("DIE at %#x: skipped to %#x of %#x", pos, next, s.end)
			}
			pos = next
		}
	})
}

// TestDIESkipperAllocations: a skipper is made for each unit a report
// names a function in (330 in gen-lto's); its allocations must not grow
// with its table's abbreviations (they were three or more each, and the
// code table grown one code at a time).
func TestDIESkipperAllocations(t *testing.T) {
	var abbrev []byte
	for code := byte(1); code <= 100; code++ {
		// DW_TAG_subprogram with children: DW_AT_sibling ref4,
		// DW_AT_name strp, DW_AT_decl_line udata, DW_AT_low_pc addr.
		abbrev = append(abbrev, code, 0x2e, 1, 0x01, 0x13, 0x03, 0x0e, 0x3b, 0x0f, 0x11, 0x01, 0, 0)
	}
	abbrev = append(abbrev, 0)
	h := unitHeader{end: 0, version: 4, addrSize: 8}
	s, err := newDIESkipper(nil, abbrev, h, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if sh := s.shape(100); sh == nil || len(sh.forms) != 4 || sh.fixed != -1 || !sh.sibling || s.shape(50) == s.shape(51) {
		t.Fatalf("shape of code 100: %+v", sh)
	}
	allocs := testing.AllocsPerRun(20, func() {
		newDIESkipper(nil, abbrev, h, binary.LittleEndian)
	})
	if allocs > 8 {
		t.Errorf("a skipper over 100 abbreviations: %.0f allocations", allocs)
	}
}

// TestLazyDIESkipper: a lazy skipper (pathQualifier's, one per early-
// debug unit of an LTO program) checks its whole table as the eager one
// does, but makes only the shapes its DIEs use.
func TestLazyDIESkipper(t *testing.T) {
	var abbrev []byte
	for code := byte(1); code <= 100; code++ {
		abbrev = append(abbrev, code, 0x2e, 1, 0x01, 0x13, 0x03, 0x0e, 0x3b, 0x0f, 0x11, 0x01, 0, 0)
	}
	// A unit of two DIEs using code 7 (sibling, name, line, low_pc),
	// each with no children but the null entry ending them.
	die := []byte{7, 0, 0, 0, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 0}
	info := append(slices.Clone(die), die...)
	h := unitHeader{end: uint64(len(info)), version: 4, addrSize: 8}
	table := append(slices.Clone(abbrev), 0)
	read := func(newSkipper func(info, abbrev []byte, h unitHeader, order binary.ByteOrder) (*dieSkipper, error)) {
		s, err := newSkipper(info, table, h, binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		if next, err := s.tree(0); err != nil || next != uint64(len(die)) {
			t.Fatalf("first DIE: next %#x, %v", next, err)
		}
		if next, err := s.tree(uint64(len(die))); err != nil || next != uint64(2*len(die)) {
			t.Fatalf("second DIE: next %#x, %v", next, err)
		}
	}
	eager, lazy := allocatedBytes(func() { read(newDIESkipper) }), allocatedBytes(func() { read(newLazyDIESkipper) })
	t.Logf("bytes allocated: eager skipper %d, lazy %d", eager, lazy)
	if lazy*3 > eager {
		t.Errorf("a lazy skipper over 100 abbreviations reading 2 DIEs allocated %d bytes, the eager one %d", lazy, eager)
	}
	bad := append(slices.Clone(abbrev), 101, 0x2e, 0, 0x03, 0x7f, 0, 0, 0) // unknown form 0x7f
	if _, err := newLazyDIESkipper(info, bad, h, binary.LittleEndian); err == nil {
		t.Error("a table with an unknown form in a code no DIE uses: accepted")
	}
}

// allocatedBytes is what f allocates, the mean of 50 runs.
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 50 {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / 50
}

// TestDIESkipperCodesAsDebugDWARF: on a table that declares a code twice,
// or a code past 32 bits, the skipper steps over DIEs by the declaration
// debug/dwarf reads them with (the last one; codes truncated to 32
// bits), so that a walk that skips and one that reads agree on hostile
// input too. The skipper took the first declaration and whole codes.
func TestDIESkipperCodesAsDebugDWARF(t *testing.T) {
	uleb := func(v uint64) []byte { return binary.AppendUvarint(nil, v) }
	var abbrev []byte
	// 1: compile unit with children, no attributes.
	abbrev = append(abbrev, 1, 0x11, 1, 0, 0)
	// 2, twice: a variable named by a string, then by one byte of data.
	abbrev = append(abbrev, 2, 0x34, 0, 0x03, 0x08, 0, 0)
	abbrev = append(abbrev, 2, 0x34, 0, 0x03, 0x0b, 0, 0)
	// 1<<32 + 3, read as 3: a variable named by one byte of data.
	abbrev = append(append(abbrev, uleb(1<<32+3)...), 0x34, 0, 0x03, 0x0b, 0, 0)
	abbrev = append(abbrev, 0)
	// The unit: its top DIE, a variable of code 2 whose name byte is 'q'
	// followed by a variable of code 3, then the end of the children.
	dies := []byte{1, 2, 'q', 3, 'r', 0}
	h := unitHeader{end: uint64(len(dies)), version: 4, addrSize: 8}

	// What debug/dwarf reads.
	info := binary.LittleEndian.AppendUint32(nil, uint32(2+4+1+len(dies)))
	info = append(info, 4, 0, 0, 0, 0, 0, 8)
	info = append(info, dies...)
	d, err := dwarf.New(abbrev, nil, nil, info, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Reader()
	var vars []any
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		if e.Tag == dwarf.TagVariable {
			vars = append(vars, e.Val(dwarf.AttrName))
		}
	}
	if !reflect.DeepEqual(vars, []any{int64('q'), int64('r')}) {
		t.Fatalf("debug/dwarf read the variables' names as %v", vars)
	}

	eager, err := newDIESkipper(dies, abbrev, h, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := newLazyDIESkipper(dies, abbrev, h, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*dieSkipper{"eager": eager, "lazy": lazy} {
		for _, step := range []struct{ at, next uint64 }{{1, 3}, {3, 5}, {0, 6}} {
			if next, err := s.tree(step.at); err != nil || next != step.next {
				t.Errorf("%s skipper: DIE at %d ends at %d (%v), debug/dwarf's at %d", name, step.at, next, err, step.next)
			}
		}
	}
}

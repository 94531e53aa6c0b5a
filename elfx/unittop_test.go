package elfx

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestUnitTopMatchesEntry reads the top DIE of every unit of real
// binaries (Rust, C++ with templates, C++ built with LTO: early-debug
// units and DW_FORM_ref_addr; and every 20th unit of libc's debug
// file) with readUnitTop and holds what it gives to what debug/dwarf
// reads opening the unit, as the unlisted walk did.
func TestUnitTopMatchesEntry(t *testing.T) {
	for name, file := range dieSkipBinaries(t) {
		t.Run(name, func(t *testing.T) { checkUnitTops(t, mustOpen(t, file), 1) })
	}
	t.Run("libc-dbg", func(t *testing.T) {
		checkUnitTops(t, mustOpen(t, libcWithDebug(t).DebugFile()), 20)
	})
}

// checkUnitTops compares readUnitTop with the opened unit's top DIE on
// every every-th unit of o.
func checkUnitTops(t *testing.T, o *Object, every int) {
	x, err := o.newLazyDWARFIndex()
	if err != nil || x == nil {
		t.Fatalf("no lazy index: %v", err)
	}
	l := x.lazy
	l.info.keep()
	l.line.keep()
	read, noCode := 0, 0
	for i, cu := range l.walkUnits() {
		if i%every != 0 {
			continue
		}
		top, ok := l.readUnitTop(uint64(cu.off))
		if err := cu.open(); err != nil {
			t.Fatalf("unit %#x: %v", cu.off, err)
		}
		if !ok {
			t.Logf("unit %#x: top DIE not read by the skipper", cu.off)
			continue
		}
		read++
		if want := entryTop(cu.entry); top != want {
			t.Errorf("unit %#x: top DIE read as %+v, debug/dwarf reads %+v", cu.off, top, want)
		}
		if l.noCode(top) {
			noCode++
		}
	}
	t.Logf("%d top DIEs read, %d of units without code", read, noCode)
	if read == 0 {
		t.Fatal("no top DIE read by the skipper: the test proves nothing")
	}
}

// TestUnlistedWalkOpensUnitsWithCode has an LTO program's index walk the
// units .debug_aranges leaves out (its early-debug units: no code) and
// checks it made a dwarf.Data only for the units with code: the others
// are read by their top DIEs alone (unittop.go).
func TestUnlistedWalkOpensUnitsWithCode(t *testing.T) {
	o := mustOpen(t, dieSkipBinaries(t)["lto"])
	x, err := o.newLazyDWARFIndex()
	if err != nil || x == nil {
		t.Fatalf("no lazy index: %v", err)
	}
	l := x.lazy
	u := l.unlistedIndex()
	opened := map[*cuIndex]bool{}
	for _, cu := range u.cus {
		opened[cu] = cu.d != nil
	}
	withCode, without := 0, 0
	for _, cu := range u.cus {
		if err := cu.open(); err != nil {
			t.Fatalf("unit %#x: %v", cu.off, err)
		}
		code := !l.noCode(entryTop(cu.entry))
		if code {
			withCode++
		} else {
			without++
		}
		if opened[cu] != code {
			t.Errorf("unit %#x (code: %v): opened by the walk: %v", cu.off, code, opened[cu])
		}
	}
	t.Logf("%d unlisted units: %d with code, %d without", len(u.cus), withCode, without)
	if without == 0 {
		t.Fatal("no unlisted unit without code: the test proves nothing")
	}
}

// bytesLazyDWARF is a lazy index's sections over a .debug_info and a
// .debug_abbrev alone (little-endian), for the fuzz targets and the
// tests of crafted units.
func bytesLazyDWARF(info, abbrev []byte) *lazyDWARF {
	stream := func(name string, b []byte) *sectionStream {
		return &sectionStream{name: name, buf: b, done: len(b)}
	}
	return &lazyDWARF{
		name:         "fuzz",
		order:        binary.LittleEndian,
		info:         stream(".debug_info", info),
		line:         stream(".debug_line", nil),
		abbrev:       stream(".debug_abbrev", abbrev),
		sec:          make([][]byte, len(dwarfSections)),
		units:        map[uint64]*cuIndex{},
		listedStarts: []uint64{0},
	}
}

// A DWARF 4 unit whose top DIE (DW_TAG_compile_unit, abbreviation 2,
// declared after abbreviation 1) has DW_AT_stmt_list (sec_offset 0x10)
// and DW_AT_low_pc (addr).
var (
	craftedUnitInfo   = []byte{0x14, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 2, 0x10, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0}
	craftedUnitAbbrev = []byte{1, 0x24, 0, 0x03, 0x08, 0, 0, 2, 0x11, 0, 0x10, 0x17, 0x11, 0x01, 0, 0, 0}
)

// TestUnitTopCrafted reads the crafted unit's top DIE, and the same
// with DW_AT_stmt_list as data8, of a form it leaves to debug/dwarf.
func TestUnitTopCrafted(t *testing.T) {
	l := bytesLazyDWARF(craftedUnitInfo, craftedUnitAbbrev)
	top, ok := l.readUnitTop(0)
	want := unitTop{tag: 0x11, ranged: true, stmtList: 0x10, hasStmt: true}
	if !ok || top != want {
		t.Errorf("top DIE read as %+v, %v; want %+v", top, ok, want)
	}
	cu := &cuIndex{lazy: l}
	if err := l.openUnit(cu); err != nil || entryTop(cu.entry) != want {
		t.Fatalf("debug/dwarf reads %+v (%v); want %+v", cu.entry, err, want)
	}
	abbrev := slices.Clone(craftedUnitAbbrev)
	abbrev[11] = 0x0b // DW_FORM_data1
	if top, ok := bytesLazyDWARF(craftedUnitInfo, abbrev).readUnitTop(0); ok {
		t.Errorf("DW_AT_stmt_list of DW_FORM_data1 read as %+v: the unit should be opened", top)
	}
}

// FuzzUnitTop holds readUnitTop to debug/dwarf on the first unit of
// hostile sections: it must not panic, and where both read the top DIE
// they must agree.
func FuzzUnitTop(f *testing.F) {
	f.Add(craftedUnitInfo, craftedUnitAbbrev)
	if info, abbrev, ok := ltoUnitsSections(); ok {
		f.Add(info, abbrev)
	}
	f.Fuzz(func(t *testing.T, info, abbrev []byte) {
		l := bytesLazyDWARF(info, abbrev)
		top, ok := l.readUnitTop(0)
		cu := &cuIndex{lazy: l}
		if !ok || l.openUnit(cu) != nil {
			return
		}
		if want := entryTop(cu.entry); top != want {
			t.Fatalf("top DIE read as %+v, debug/dwarf reads %+v", top, want)
		}
	})
}

// ltoUnitsSections are the .debug_info and .debug_abbrev of e2e's units
// program built with -flto (early-debug units, DW_FORM_ref_addr between
// units), for the fuzz targets' seeds; ok is false where g++ cannot
// build it.
func ltoUnitsSections() (info, abbrev []byte, ok bool) {
	dir, err := os.MkdirTemp("", "elfx-seed")
	if err != nil {
		return nil, nil, false
	}
	defer os.RemoveAll(dir)
	src := filepath.Join("..", "e2e", "testdata", "progs")
	exe := filepath.Join(dir, "units")
	args := []string{"-O2", "-g", "-flto", "-o", exe}
	for _, s := range []string{"units_main.cc", "units_walk.cc", "units_leaf.cc"} {
		args = append(args, filepath.Join(src, s))
	}
	if exec.Command("g++", args...).Run() != nil {
		return nil, nil, false
	}
	o, err := Open(exe)
	if err != nil {
		return nil, nil, false
	}
	defer o.Close()
	sec, err := o.sectionsData([]string{".debug_info", ".debug_abbrev"})
	if err != nil || len(sec[0]) == 0 {
		return nil, nil, false
	}
	// Copies: the sections lie in the mapping Close unmaps.
	return slices.Clone(sec[0]), slices.Clone(sec[1]), true
}

package elfx

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestLazyDWARFCrossUnitReferences builds e2e's units program (three
// files, functions in namespace units) with -flto, whose code's units
// name their functions with DW_FORM_ref_addr into the early-debug unit
// of each file, and with dwz, which moves the DIEs the units share into
// partial units. The lazy index must read such units on their own (no
// dwarf.Data over the whole section) and give the eager index's frames
// at every instruction, names qualified by the namespace around the DIE
// in the other unit included.
func TestLazyDWARFCrossUnitReferences(t *testing.T) {
	src := filepath.Join("..", "e2e", "testdata", "progs")
	var files []string
	for _, f := range []string{"units_main.cc", "units_walk.cc", "units_leaf.cc"} {
		files = append(files, filepath.Join(src, f))
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		flags []string
		dwz   bool
	}{
		{"lto", []string{"-flto", "-gz=zlib"}, false},
		{"dwz", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exe := filepath.Join(dir, tc.name)
			testenv.Build(t, "g++", append(append([]string{"-O2", "-g", "-o", exe}, tc.flags...), files...)...)
			if tc.dwz {
				run(t, dir, testenv.NeedTool(t, "dwz"), exe)
			}
			o := mustOpen(t, exe)
			lazy, err := o.newLazyDWARFIndex()
			if err != nil || lazy == nil {
				t.Fatalf("lazy index of %s: %v, %v", exe, lazy, err)
			}
			eager := eagerDWARFIndex(t, o)
			addrs := instructionAddrs(t, exe, func(string) bool { return true })
			// Addresses outside the units .debug_aranges lists go to
			// the index over the units it leaves out: these must be
			// read on their own too.
			outside := 0
			qualified := false
			for _, a := range addrs {
				if !lazy.byPC.covers(a) {
					outside++
				}
				want, werr := eager.sourceFrames(a, o)
				got, gerr := lazy.sourceFrames(a, o)
				if (werr != nil) != (gerr != nil) || len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
					t.Errorf("%#x: lazy %+v, %v; eager %+v, %v", a, got, gerr, want, werr)
				}
				for _, f := range got {
					qualified = qualified || f.Function == "units::step" || f.Function == "units::scaled"
				}
			}
			if lazy.lazy.global != nil {
				t.Error("the lazy index read the whole of .debug_info through one dwarf.Data")
			}
			if outside == 0 {
				t.Error("no instruction outside the units .debug_aranges lists: the test proves nothing")
			}
			if !qualified {
				t.Error("no frame of units::step or units::scaled: the program no longer tests names from other units")
			}
			refAddr := 0
			for _, cu := range lazy.lazy.units {
				if cu.refAddr {
					refAddr++
				}
			}
			if refAddr == 0 {
				t.Error("no unit refers to another with DW_FORM_ref_addr: the test proves nothing")
			}
		})
	}
}

// FuzzCrossUnitRefs reads hostile .debug_info and .debug_abbrev bytes
// the way references between units are followed: the first unit opened
// on its own (its DW_FORM_ref_addr read as data), every reference of its
// DIEs followed to the unit found by offset, the unit holding off, and
// the index over the units .debug_aranges does not list; the names
// around each referenced DIE are found along the path to it, and read
// by the origin readers of the units the references land in.
// Seeded with the sections of the units program built with -flto when
// g++ is there.
func FuzzCrossUnitRefs(f *testing.F) {
	f.Add([]byte{0x10, 0, 0, 0, 5, 0, 1, 8, 0, 0, 0, 0, 1, 0x10, 0, 0, 0, 0}, []byte{1, 0x11, 0, 0x31, 0x10, 0, 0, 0}, uint64(12))
	if info, abbrev, ok := ltoUnitsSections(); ok {
		f.Add(info, abbrev, uint64(len(info)/2))
	}
	f.Fuzz(func(t *testing.T, info, abbrev []byte, off uint64) {
		l := bytesLazyDWARF(info, abbrev)
		first := &cuIndex{lazy: l}
		l.units[0] = first
		x := &dwarfIndex{name: "fuzz", lazy: l}
		follow := func(cu *cuIndex) {
			r := cu.d.Reader()
			for i := 0; i < 1000; i++ {
				e, err := r.Next()
				if err != nil || e == nil {
					return
				}
				if at, ref, ok := cu.origin(e); ok {
					at.entryAt(ref)
					at.pathQualifier(ref) // the names around it (scopepath.go)
				}
				// The chain read by the units' origin readers
				// (originreader.go).
				x.readFuncName(cu, e.Offset, true)
			}
		}
		if first.open() == nil {
			follow(first)
		}
		if cu, err := l.findUnit(off); err == nil {
			if r := cu.originReader(); r != nil {
				r.mu.Lock()
				r.die(off)
				r.qualifier(off)
				r.mu.Unlock()
			}
		}
		if cu, err := l.unitAt(off); err == nil {
			if uint64(cu.off) > off {
				t.Fatalf("unit at %#x holds offset %#x", cu.off, off)
			}
			follow(cu)
		}
		// The first walk over the first unit's DIEs, the subtree of the
		// function at off and the subtrees around each function's
		// first child (scopetree.go).
		if first.load(x) == nil {
			first.functionAt(x, off)
			for _, b := range first.bodies {
				first.expandAround(x, b.start+1)
			}
		}
		// The units .debug_aranges leaves out (here: all of them),
		// found by walking the headers, for an address it does not cover.
		l.unlistedIndex().functionScope(off)
	})
}

package elfx

import (
	"debug/dwarf"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// unitsProgram builds e2e's units program (functions in namespace units,
// one file each) with the given extra flags, and runs dwz over it when
// asked.
func unitsProgram(t *testing.T, name string, dwz bool, flags ...string) string {
	t.Helper()
	src := filepath.Join("..", "e2e", "testdata", "progs")
	exe := filepath.Join(t.TempDir(), name)
	args := append([]string{"-O2", "-g", "-o", exe}, flags...)
	for _, f := range []string{"units_main.cc", "units_walk.cc", "units_leaf.cc"} {
		args = append(args, filepath.Join(src, f))
	}
	testenv.Build(t, "g++", args...)
	if dwz {
		run(t, filepath.Dir(exe), testenv.NeedTool(t, "dwz"), exe)
	}
	return exe
}

// TestNamesFromOtherUnitsReadNoScopeTree: the names around a function's
// DIE in another unit (LTO's early-debug units, dwz's partial units)
// qualify the frame's name ("units::step"), and finding them reads the
// path to that DIE, not the other unit's line program and scope tree
// (which, for a template-heavy LTO program, was most of a report); an
// early-debug unit is not even opened as a dwarf.Data (its abbreviation
// table parsed into maps: a fifth of gen-lto's report).
func TestNamesFromOtherUnitsReadNoScopeTree(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dwz   bool
		flags []string
	}{
		{"lto", false, []string{"-flto", "-gz=zlib"}},
		{"dwz", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exe := unitsProgram(t, tc.name, tc.dwz, tc.flags...)
			o := mustOpen(t, exe)
			lazy, err := o.newLazyDWARFIndex()
			if err != nil || lazy == nil {
				t.Fatalf("lazy index of %s: %v, %v", exe, lazy, err)
			}
			qualified := map[string]bool{}
			for _, a := range instructionAddrs(t, exe, func(string) bool { return true }) {
				frames, _ := lazy.sourceFrames(a, o)
				for _, f := range frames {
					if f.Function == "units::step" || f.Function == "units::scaled" || f.Function == "units::load<int>" {
						qualified[f.Function] = true
					}
				}
			}
			if len(qualified) < 2 {
				t.Errorf("qualified names found: %v; want units::step and units::scaled at least", qualified)
			}
			lazy.lazy.unitsMu.Lock()
			defer lazy.lazy.unitsMu.Unlock()
			others := 0
			for off, cu := range lazy.lazy.units {
				if cu.entry == nil && cu.origins == nil {
					continue // not read
				}
				if top, ok := lazy.lazy.readUnitTop(off); !ok || top.ranged {
					continue // a unit with code
				}
				others++
				if len(cu.quals) > 0 || len(cu.qualNodes) > 0 {
					t.Errorf("the unit at %#x, which has no code, had its scope tree read to name a frame (%d subprograms)", cu.off, len(cu.quals))
				}
				// dwz's partial units give the file names of the calls
				// inlined from them: their line programs are read, and
				// so they are opened. LTO's early-debug units are read
				// by their originReader alone (originreader.go).
				if !tc.dwz && cu.d != nil {
					t.Errorf("the unit at %#x, which has no code, was opened as a dwarf.Data to name a frame", cu.off)
				}
			}
			if others == 0 {
				t.Error("no unit without code was read: the names no longer come from other units, the test proves nothing")
			}
		})
	}
}

// TestPathQualifierAsScopeWalk: for every subprogram DIE of every unit
// of the units program (LTO, dwz, plain), the path from the unit's top,
// read from the raw bytes, gives the names the unit's scope walk records
// for it.
func TestPathQualifierAsScopeWalk(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dwz   bool
		flags []string
	}{
		{"lto", false, []string{"-flto"}},
		{"dwz", true, nil},
		{"plain", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := mustOpen(t, unitsProgram(t, tc.name, tc.dwz, tc.flags...))
			x, err := o.newLazyDWARFIndex()
			if err != nil || x == nil {
				t.Fatalf("lazy index: %v, %v", x, err)
			}
			checked, nonEmpty := 0, 0
			for _, cu := range x.lazy.walkUnits() {
				if err := cu.open(); err != nil {
					t.Fatalf("unit at %#x: %v", cu.off, err)
				}
				if err := cu.load(x); err != nil {
					t.Fatalf("unit at %#x: %v", cu.off, err)
				}
				r := cu.d.Reader()
				r.Seek(cu.entry.Offset)
				for depth := 0; ; {
					e, err := r.Next()
					if err != nil {
						t.Fatalf("unit at %#x: %v", cu.off, err)
					}
					if e == nil {
						break
					}
					if e.Tag == 0 {
						if depth--; depth == 0 {
							break
						}
						continue
					}
					if e.Children {
						depth++
					}
					if e.Tag != dwarf.TagSubprogram {
						continue
					}
					got, ok := cu.pathQualifier(e.Offset)
					if !ok {
						continue // in a body: the scope tree answers
					}
					cu.expandAround(x, e.Offset)
					want := cu.qualOf(e.Offset)
					if got != want {
						t.Errorf("unit at %#x, DIE %#x: path gives %q, the scope walk %q", cu.off, e.Offset, got, want)
					}
					checked++
					if got != "" {
						nonEmpty++
					}
				}
			}
			if checked == 0 || nonEmpty == 0 {
				t.Errorf("%d subprograms checked, %d of them qualified: the test proves nothing", checked, nonEmpty)
			}
		})
	}
}

package elfx

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"golang.org/x/sys/unix"
)

// TestLazyDWARFMatchesEager reads libc's debug file both ways: the lazy
// index (units found by .debug_aranges, each read on its own, sections
// inflated as far as needed) must give the same frames as the eager index
// over every unit, which TestLibcSourceFramesMatchAddr2line checks
// against addr2line. One lookup must open one unit and leave most of
// .debug_info uninflated.
func TestLazyDWARFMatchesEager(t *testing.T) {
	o := libcWithDebug(t)
	dbg := mustOpen(t, o.DebugFile())
	lazy, err := dbg.newLazyDWARFIndex()
	if err != nil || lazy == nil {
		t.Fatalf("lazy index of %s: %v, %v (no .debug_aranges?)", o.DebugFile(), lazy, err)
	}
	addrs := sampleAddrs(t, dbg.ELF(), 300)
	lazy.sourceFrames(addrs[0], o)
	opened := 0
	for _, cu := range lazy.allUnits() {
		if cu.entry != nil {
			opened++
		}
	}
	if opened != 1 {
		t.Errorf("one lookup opened %d of %d units", opened, len(lazy.allUnits()))
	}
	if done, size := lazy.lazy.info.done, len(lazy.lazy.info.buf); done > size/2 {
		t.Errorf("one lookup at the start of the text inflated %d of %d bytes of .debug_info", done, size)
	}

	eager := eagerDWARFIndex(t, dbg)
	start := time.Now()
	for _, a := range addrs {
		want, werr := eager.sourceFrames(a, o)
		got, gerr := lazy.sourceFrames(a, o)
		if (werr != nil) != (gerr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%#x: lazy %+v, %v; eager %+v, %v", a, got, gerr, want, werr)
		}
	}
	t.Logf("%d addresses in %v", len(addrs), time.Since(start))

	// Preloading two far-apart units gives back the pages of .debug_info
	// between them; later lookups in those pages inflate them again and
	// still agree.
	dropping, err := dbg.newLazyDWARFIndex()
	if err != nil {
		t.Fatal(err)
	}
	// The heap the tests before left (TestDIESkipperMatchesReader walks
	// hundreds of units) is collected first: the preload's allocations
	// then reuse its pages rather than fault new ones in.
	runtime.GC()
	faults := minorFaults(t)
	dropping.preload([]uint64{addrs[0], addrs[len(addrs)-1]})
	faults = minorFaults(t) - faults
	if info := dropping.lazy.info; info.owned() && len(info.dropped) == 0 {
		t.Error("preloading two far-apart units gave no page of .debug_info back")
	} else if skipped := droppedPages(info); info.owned() && !raceDetector && faults > int64(skipped*3/4) {
		// The bytes between the two units go through a small buffer:
		// the pages of the section's mapping there are never touched
		// (each page inflated into it and given back was a fault). The
		// faults left are the two units', the compressed file's and
		// the heap's.
		t.Errorf("preloading two units %d pages apart in .debug_info took %d page faults", skipped, faults)
	}
	for i := len(addrs) - 1; i >= 0; i -= 7 {
		a := addrs[i]
		want, _ := eager.sourceFrames(a, o)
		if got, _ := dropping.sourceFrames(a, o); !reflect.DeepEqual(got, want) {
			t.Errorf("%#x after pages were given back: %+v, want %+v", a, got, want)
		}
	}
	// An address no unit covers goes to the eager index and gives what
	// it gives.
	if got, want := fmt0(lazy.sourceFrames(1, o)), fmt0(eager.sourceFrames(1, o)); !reflect.DeepEqual(got, want) {
		t.Errorf("address 1: lazy %+v, eager %+v", got, want)
	}
}

// TestBatchKeepsInflatedDWARF checks that a batch's cache keeps what its
// objects' compressed DWARF inflated: preloading two far-apart units gives
// no page back, so the next core's units in between are not inflated
// again from the section's start.
func TestBatchKeepsInflatedDWARF(t *testing.T) {
	o, dbg := batchLibc(t)
	x, err := dbg.newLazyDWARFIndex()
	if err != nil || x == nil {
		t.Fatalf("lazy index: %v, %v", x, err)
	}
	addrs := sampleAddrs(t, dbg.ELF(), 300)
	x.preload([]uint64{addrs[0], addrs[len(addrs)-1]})
	info := x.lazy.info
	if !info.owned() {
		t.Fatal("libc's debug file has an uncompressed .debug_info (Debian compresses it): nothing to test")
	}
	if len(info.dropped) != 0 || !info.kept {
		t.Fatalf("a batch's stream gave back %v (kept %v)", info.dropped, info.kept)
	}
	want := eagerDWARFIndex(t, dbg)
	for i := len(addrs) - 2; i > 0; i -= 11 {
		got, _ := x.sourceFrames(addrs[i], o)
		if w, _ := want.sourceFrames(addrs[i], o); !reflect.DeepEqual(got, w) {
			t.Errorf("%#x: %+v, want %+v", addrs[i], got, w)
		}
	}
	if len(info.dropped) != 0 {
		t.Errorf("lookups after the preload gave pages back: %v", info.dropped)
	}
}

// eagerDWARFIndex is o's DWARF indexed whole, the reference the lazy
// index must match.
func eagerDWARFIndex(t *testing.T, o *Object) *dwarfIndex {
	t.Helper()
	data, err := o.loadDWARF()
	if err != nil {
		t.Fatal(err)
	}
	eager, err := newDWARFIndex(o.name, data)
	if err != nil {
		t.Fatal(err)
	}
	return eager
}

func fmt0(f []SourceFrame, _ error) []SourceFrame { return f }

// FuzzDWARFHeaders fuzzes the parsers of the lazy index: .debug_aranges
// sets and abbreviation tables, seeded with a hand-made set, a table
// with DW_FORM_ref_addr, and the start of this machine's libc debug
// file's sections when it is installed.
func FuzzDWARFHeaders(f *testing.F) {
	f.Add([]byte{0x2c, 0, 0, 0, 2, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint64(0))
	f.Add([]byte{1, 0x11, 1, 0x25, 0x0e, 0x13, 0x0b, 0, 0, 2, 0x2e, 0, 0x31, 0x10, 0, 0, 0}, uint64(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x20, 0, 0, 0, 0, 0, 0, 0, 2, 0}, uint64(3))
	f.Add(arangeSets(0, 0x40, 0), uint64(0)) // a unit's sets apart: units A, B, A
	if paths, _ := filepath.Glob("/lib/*-linux-gnu/libc.so.6"); len(paths) > 0 {
		if o, err := Open(paths[0]); err == nil {
			defer o.Close()
			if _, err := o.AttachDebugFile(nil); err == nil {
				if sec, err := o.debugObject().sectionsData([]string{".debug_aranges", ".debug_abbrev"}); err == nil {
					for _, b := range sec {
						f.Add(b[:min(len(b), 4096)], uint64(0))
					}
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, off uint64) {
		units, ok := parseAranges(b, binary.LittleEndian)
		if ok {
			distinct := map[uint64]bool{}
			for _, u := range units {
				if u.hi <= u.lo {
					t.Fatalf("empty or wrapping range %+v", u)
				}
				distinct[u.info] = true
			}
			if len(distinct) > mostUnits(units) {
				t.Fatalf("%d units named, mostUnits says %d at most", len(distinct), mostUnits(units))
			}
		}
		selfContained(b, off)
		if tab := abbrevTable(b, off); tab.parsed {
			for _, p := range tab.refAddr {
				if p < off || p >= tab.end || b[p] != formRefAddr {
					t.Fatalf("DW_FORM_ref_addr at %#x of a table at [%#x,%#x)", p, off, tab.end)
				}
			}
		}
	})
}

// minorFaults is the process's count of minor page faults so far.
func minorFaults(t *testing.T) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return ru.Minflt
}

// droppedPages is how many pages of st's mapping lie in ranges given back
// or never kept.
func droppedPages(st *sectionStream) int {
	n := 0
	for _, d := range st.dropped {
		n += d[1] - d[0]
	}
	return n / os.Getpagesize()
}

// Where .debug_aranges lists every unit of an uncompressed .debug_info,
// an address outside them all (the PLT, crt code without DWARF) is in
// no unit without building the eager index, and the lazy and eager
// indexes agree there and inside the units; a unit left out of
// .debug_aranges (here: a second file compiled without it) sends such
// addresses to the eager index again.
func TestLazyDWARFEveryUnitListed(t *testing.T) {
	dir := t.TempDir()
	src := `
#include <stdio.h>
static inline int twice(int x) { return 2 * x; }
int helper(int x);
int main(int argc, char **argv) { printf("%d\n", twice(argc)); return helper(argc); }
`
	other := filepath.Join(dir, "other.c")
	if err := os.WriteFile(other, []byte("int helper(int x) { return x + 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Build(t, "gcc", "-c", "-O1", "-g", "-o", other+".o", other)
	// The same object without its .debug_aranges: its unit is linked
	// in unlisted.
	run(t, dir, testenv.NeedTool(t, "objcopy"), "--remove-section", ".debug_aranges", other+".o", other+".unlisted.o")
	for _, tc := range []struct {
		name   string
		obj    string
		listed bool
	}{
		{"all-listed", other + ".o", true},
		{"one-unlisted", other + ".unlisted.o", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exe := testenv.BuildC(t, dir, tc.name, src, "-O1", "-g", tc.obj)
			o := mustOpen(t, exe)
			lazy, err := o.newLazyDWARFIndex()
			if err != nil || lazy == nil {
				t.Fatalf("lazy index of %s: %v, %v", exe, lazy, err)
			}
			eager := eagerDWARFIndex(t, o)
			addrs := instructionAddrs(t, exe, func(string) bool { return true })
			if len(addrs) < 20 {
				t.Fatalf("%d instructions in %s", len(addrs), exe)
			}
			outside := 0
			for _, a := range addrs {
				if !lazy.byPC.covers(a) {
					outside++
				}
				want, werr := eager.sourceFrames(a, o)
				got, gerr := lazy.sourceFrames(a, o)
				if (werr != nil) != (gerr != nil) || len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
					t.Errorf("%#x: lazy %+v, %v; eager %+v, %v", a, got, gerr, want, werr)
				}
			}
			if outside == 0 {
				t.Fatal("no instruction outside the units: the test proves nothing")
			}
			if got := lazy.lazy.everyUnitListed(); got != tc.listed {
				t.Errorf("everyUnitListed %v, want %v", got, tc.listed)
			}
			if built := lazy.lazy.unlisted.x != nil; built == tc.listed {
				t.Errorf("index of the unlisted units built: %v (every unit listed: %v)", built, tc.listed)
			}
		})
	}
}

// arangeSets is a .debug_aranges of one 64-bit set per offset in infos,
// each with one range.
func arangeSets(infos ...uint32) []byte {
	var b []byte
	for i, info := range infos {
		set := binary.LittleEndian.AppendUint32(nil, 44) // length after this field
		set = binary.LittleEndian.AppendUint16(set, 2)
		set = binary.LittleEndian.AppendUint32(set, info)
		set = append(set, 8, 0, 0, 0, 0, 0) // address size, segment size, padding to 16
		set = binary.LittleEndian.AppendUint64(set, uint64(0x1000*(i+1)))
		set = binary.LittleEndian.AppendUint64(set, 0x10)
		b = append(b, set...)
		b = append(b, make([]byte, 16)...) // the terminating tuple
	}
	return b
}

// Units whose sets are apart (A, B, A) are counted once per set: the
// bound the lazy index sizes its slab of units by (FuzzDWARFHeaders
// checks that it bounds the units named).
func TestMostUnitsSetsApart(t *testing.T) {
	units, ok := parseAranges(arangeSets(0, 0x40, 0), binary.LittleEndian)
	if !ok || len(units) != 3 {
		t.Fatalf("parseAranges: %d ranges, %v", len(units), ok)
	}
	if n := mostUnits(units); n != 3 {
		t.Errorf("mostUnits = %d, want 3 (one per set)", n)
	}
	// A second range of the last set's unit names no further unit.
	units = append(units, arangeUnit{info: 0, lo: 0x9000, hi: 0x9010})
	if n := mostUnits(units); n != 3 {
		t.Errorf("mostUnits with a second range of A's last set = %d, want 3", n)
	}
}

// batchLibc opens libc through a batch's (triage's) cache, closed with
// the test, and returns it and its debug file.
func batchLibc(t *testing.T) (o, dbg *Object) {
	t.Helper()
	libc := libcWithDebug(t)
	c := NewCache()
	t.Cleanup(func() { c.Close() })
	c.SetBatch(true)
	o, err := c.Open(libc.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if dbg = o.debugObject(); dbg == nil {
		t.Fatal("no debug file attached through the cache")
	}
	return o, dbg
}

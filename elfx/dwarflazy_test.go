package elfx

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

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
	for _, cu := range lazy.cus {
		if cu.entry != nil {
			opened++
		}
	}
	if opened != 1 {
		t.Errorf("one lookup opened %d of %d units", opened, len(lazy.cus))
	}
	if done, size := lazy.lazy.info.done, len(lazy.lazy.info.buf); done > size/2 {
		t.Errorf("one lookup at the start of the text inflated %d of %d bytes of .debug_info", done, size)
	}

	data, err := dbg.loadDWARF()
	if err != nil {
		t.Fatal(err)
	}
	eager, err := newDWARFIndex(dbg.name, data)
	if err != nil {
		t.Fatal(err)
	}
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
	faults := minorFaults(t)
	dropping.preload([]uint64{addrs[0], addrs[len(addrs)-1]})
	faults = minorFaults(t) - faults
	if info := dropping.lazy.info; info.owned && len(info.dropped) == 0 {
		t.Error("preloading two far-apart units gave no page of .debug_info back")
	} else if skipped := droppedPages(info); info.owned && faults > int64(skipped*3/4) {
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

func fmt0(f []SourceFrame, _ error) []SourceFrame { return f }

// FuzzDWARFHeaders fuzzes the parsers of the lazy index: .debug_aranges
// sets and abbreviation tables, seeded with a hand-made set, a table
// with DW_FORM_ref_addr, and the start of this machine's libc debug
// file's sections when it is installed.
func FuzzDWARFHeaders(f *testing.F) {
	f.Add([]byte{0x2c, 0, 0, 0, 2, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint64(0))
	f.Add([]byte{1, 0x11, 1, 0x25, 0x0e, 0x13, 0x0b, 0, 0, 2, 0x2e, 0, 0x31, 0x10, 0, 0, 0}, uint64(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x20, 0, 0, 0, 0, 0, 0, 0, 2, 0}, uint64(3))
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
			for _, u := range units {
				if u.hi <= u.lo {
					t.Fatalf("empty or wrapping range %+v", u)
				}
			}
		}
		selfContained(b, off)
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

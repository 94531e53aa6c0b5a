package corefile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/crossarch/hpux"
)

// allocatedBy returns the bytes the Go heap allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestZeroRunIsNotACore opens a sparse file of zeros (a wiped or
// preallocated file): every file that is not ELF is probed for the HP-UX
// corehead format, whose records have no magic number, and a run of zeros
// reads as one empty CORE_NONE record per 16 bytes. The probe used to keep
// them all (100 MB of zeros: 700 MB resident); now it must answer "not a
// core" allocating nothing that grows with the file.
func TestZeroRunIsNotACore(t *testing.T) {
	const size = 64 << 20
	p := filepath.Join(t.TempDir(), "zeros")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var openErr error
	n := allocatedBy(func() {
		var c *Core
		if c, openErr = Open(p, Options{}); openErr == nil {
			c.Close()
		}
	})
	if !errors.Is(openErr, ErrNotCore) {
		t.Errorf("Open(%d zero bytes) = %v, want ErrNotCore", size, openErr)
	}
	if n > 1<<20 {
		t.Errorf("Open(%d zero bytes) allocated %d bytes, want under 1 MiB", size, n)
	}
}

// TestCoreheadManyEmptyRecords is a corehead core padded with a hundred
// thousand empty records of unknown, CORE_NONE and CORE_DATA type: the
// core loads with its thread, with a bounded number of warnings and no
// segment per empty record.
func TestCoreheadManyEmptyRecords(t *testing.T) {
	r := hpux.PARegs{}
	recs := []hpux.Record{{Type: hpux.CoreFormat, Data: []byte{0, 0, 0, 2}}}
	const padding = 100000
	for i := range padding {
		recs = append(recs, hpux.Record{Type: []int32{0, 0x4000, hpux.CoreData}[i%3]})
	}
	recs = append(recs, hpux.Record{Type: hpux.CoreProc, Data: hpux.ProcInfo(11, 0, r.SaveState(), 0)})
	c, err := OpenBytes(hpux.Corehead(recs), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Threads) != 1 {
		t.Errorf("%d threads, want 1", len(c.Threads))
	}
	if len(c.Warnings) > 10 {
		t.Errorf("%d warnings, want at most 10", len(c.Warnings))
	}
	if !strings.Contains(strings.Join(c.Warnings, "\n"), "more corehead records skipped") {
		t.Errorf("no warning counts the skipped records")
	}
	if len(c.Segments) != 0 {
		t.Errorf("%d segments, want none for empty records", len(c.Segments))
	}
}

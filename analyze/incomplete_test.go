package analyze

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// TestDamagedCoreIsIncomplete: a kernel's core whose first NT_PRSTATUS
// note has a wrong name size (5 -> 69) used to report one made-up thread
// 0, crashed, at pc 0, as a complete result. Now the report has the
// other threads, none made up and none called crashed, and it is
// incomplete (exit status 3); the intact core's is complete.
func TestDamagedCoreIsIncomplete(t *testing.T) {
	const dir = "../testdata/cores/threads-dyn"
	opts := Options{Executable: filepath.Join(dir, "threads"), UnwindOnly: true}
	good, err := Analyze(filepath.Join(dir, "core"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if Incomplete(good) {
		t.Fatalf("the intact core's report is incomplete: warnings %q", good.Warnings)
	}
	b, err := os.ReadFile(filepath.Join(dir, "core"))
	if err != nil {
		t.Fatal(err)
	}
	// The first note of the kernel's PT_NOTE segment, found by hand:
	// the segment's offset is in the first program header.
	phoff := binary.LittleEndian.Uint64(b[0x20:])
	noteOff := binary.LittleEndian.Uint64(b[phoff+8:])
	if binary.LittleEndian.Uint32(b[phoff:]) != 4 || binary.LittleEndian.Uint32(b[noteOff+8:]) != 1 {
		t.Fatal("the core's first program header is not PT_NOTE starting with NT_PRSTATUS")
	}
	binary.LittleEndian.PutUint32(b[noteOff:], 69)
	damaged := filepath.Join(t.TempDir(), "core")
	if err := os.WriteFile(damaged, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(damaged, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !Incomplete(rep) {
		t.Errorf("damaged core's report is complete; warnings %q", rep.Warnings)
	}
	if len(rep.Threads) != len(good.Threads)-1 || rep.Core.CrashedTID != nil {
		t.Errorf("%d threads (want %d), crashed tid %v (want none)", len(rep.Threads), len(good.Threads)-1, rep.Core.CrashedTID)
	}
	for _, th := range rep.Threads {
		if th.TID == 0 || th.Crashed || th.TID == *good.Core.CrashedTID {
			t.Errorf("thread %d crashed %v: made up or the damaged one's", th.TID, th.Crashed)
		}
	}
}

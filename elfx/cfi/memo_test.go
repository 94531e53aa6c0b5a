package cfi

import (
	"reflect"
	"testing"
)

// FDEs found by address are kept with their rows (a batch unwinds the
// same functions core after core): the kept rows must be the rows
// computed afresh, and a caller changing its row must not change the
// next caller's.
func TestRowMemo(t *testing.T) {
	secs, order, ptr := readSections(t, "/usr/lib/x86_64-linux-gnu/libc.so.6")
	eh, hdr := secs[".eh_frame"], secs[".eh_frame_hdr"]
	tab, err := NewEHFrame(eh.data, eh.addr, hdr.data, hdr.addr, order, ptr)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := tab.FDEs() // parsed by a walk: no rows kept
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i := 0; i < len(fresh); i += 37 {
		want := fresh[i]
		for _, pc := range []uint64{want.Begin, want.Begin + (want.End-want.Begin)/2, want.End - 1} {
			wantRow, err := want.RowAt(pc)
			if err != nil {
				t.Fatalf("FDE %#x at %#x: %v", want.Offset, pc, err)
			}
			for round := 0; round < 3; round++ {
				f, err := tab.FDEForPC(pc)
				if err != nil || f.Offset != want.Offset {
					t.Fatalf("FDEForPC(%#x): %v, %v; want FDE %#x", pc, f, err, want.Offset)
				}
				if round > 0 && f.rows == nil {
					t.Fatalf("FDE %#x found by address keeps no rows", f.Offset)
				}
				row, err := f.RowAt(pc)
				if err != nil || !reflect.DeepEqual(row, wantRow) {
					t.Fatalf("FDE %#x at %#x, round %d: %+v, %v; computed afresh %+v", f.Offset, pc, round, row, err, wantRow)
				}
				for r := range row.Regs {
					row.Regs[r] = Rule{Kind: RuleKind(99)}
				}
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d rows checked", checked)
	}
}

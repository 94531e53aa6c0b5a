package linetable

import (
	"math"
	"testing"
)

// FuzzLine decodes tables of any bytes in every format: it never panics,
// yields no more ranges than the table has bytes (plus lnotab's open
// last one), each starting where the one before ended, and Line agrees
// with the ranges.
func FuzzLine(f *testing.F) {
	// A 3.11 table: a long entry (line +1, columns), a no-column entry
	// (line -3), a one-line entry, a no-location entry.
	f.Add(byte(Locations), []byte{0xf0 | 3, 2, 2, 4, 5, 0xe8 | 1, 7, 0xd8, 3, 0xf8 | 7}, 10, 6)
	f.Add(byte(Linetable310), []byte{6, 1, 4, 0x80, 8, 0xfe, 0, 2}, 1, 12)
	f.Add(byte(Lnotab), []byte{4, 1, 0, 200, 12, 0xff, 255, 3}, 5, 300)
	f.Add(byte(Locations), []byte{0xf0, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f}, 0, 0)
	f.Fuzz(func(t *testing.T, format byte, table []byte, first, addr int) {
		fm := Format(format%3 + 1)
		n, end := 0, 0
		for r := range Ranges(fm, table, first) {
			if r.Start != end || r.End < r.Start {
				t.Fatalf("%s: range %+v after one ending at %d", fm, r, end)
			}
			end = r.End
			if n++; n > len(table)+1 {
				t.Fatalf("%s: %d ranges from %d bytes", fm, n, len(table))
			}
			if r.Start <= addr && addr < r.End {
				if got := Line(fm, table, first, addr); got != r.Line && addr >= 0 {
					t.Fatalf("%s: Line(%d) = %d, its range says %d", fm, addr, got, r.Line)
				}
			}
		}
		if fm == Lnotab && end != math.MaxInt {
			t.Fatalf("lnotab's last range ends at %d", end)
		}
		if got := Line(fm, table, first, -1); got != first {
			t.Fatalf("%s: Line(-1) = %d, want the first line %d", fm, got, first)
		}
		for range Ranges(fm, table, first) {
			break // stopping early must not resume the decoder
		}
	})
}

package cfi

import (
	"testing"
)

func libcTable(b *testing.B, withHdr bool) (*Table, []*FDE) {
	secs, order, ptr := readSections(b, "/usr/lib/x86_64-linux-gnu/libc.so.6")
	eh, hdr := secs[".eh_frame"], secs[".eh_frame_hdr"]
	if !withHdr {
		hdr = sectionData{}
	}
	tab, err := NewEHFrame(eh.data, eh.addr, hdr.data, hdr.addr, order, ptr)
	if err != nil {
		b.Fatal(err)
	}
	fdes, err := tab.FDEs()
	if err != nil {
		b.Fatal(err)
	}
	return tab, fdes
}

// BenchmarkFDEForPC looks up the middle of libc's FDEs in turn.
func BenchmarkFDEForPC(b *testing.B) {
	for _, withHdr := range []bool{true, false} {
		name := "hdr"
		if !withHdr {
			name = "index"
		}
		b.Run(name, func(b *testing.B) {
			tab, fdes := libcTable(b, withHdr)
			pcs := make([]uint64, len(fdes))
			for i, f := range fdes {
				pcs[i] = f.Begin + (f.End-f.Begin)/2
			}
			_, _ = tab.FDEForPC(pcs[0]) // build the index outside the timing
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := tab.FDEForPC(pcs[i%len(pcs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRowAt computes the row at the last address of libc's FDEs
// (the worst case: every instruction runs).
func BenchmarkRowAt(b *testing.B) {
	_, fdes := libcTable(b, true)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := fdes[i%len(fdes)]
		if _, err := f.RowAt(f.End - 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewEHFrameFirstLookup: the cost of opening libc's table and
// answering one lookup (header validation, or indexing without it).
func BenchmarkNewEHFrameFirstLookup(b *testing.B) {
	secs, order, ptr := readSections(b, "/usr/lib/x86_64-linux-gnu/libc.so.6")
	eh, hdr := secs[".eh_frame"], secs[".eh_frame_hdr"]
	for _, withHdr := range []bool{true, false} {
		name := "hdr"
		h := hdr
		if !withHdr {
			name, h = "index", sectionData{}
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				tab, _ := NewEHFrame(eh.data, eh.addr, h.data, h.addr, order, ptr)
				if _, err := tab.FDEForPC(0x3c050); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

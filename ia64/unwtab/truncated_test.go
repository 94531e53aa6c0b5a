package unwtab

import (
	"debug/elf"
	"os"
	"testing"

	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
)

// TestTruncatedInfoBlocks: every info block of walk.s, cut short anywhere inside it, is an error, not a block.
func TestTruncatedInfoBlocks(t *testing.T) {
	src, err := os.ReadFile("../testdata/walk.s")
	if err != nil {
		t.Fatal(err)
	}
	exe := crossia64.Build(t, t.TempDir(), "walk", string(src), true, true, "_start")
	ef, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	tab, err := ReadTable(ef)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i := range tab.Entries {
		e := &tab.Entries[i]
		data, off, err := tab.bytesAt(tab.SegBase + e.InfoOffset)
		if err != nil {
			t.Fatal(err)
		}
		in, err := ParseInfo(data, off, tab.Order, tab.PtrSize)
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		end := off + 8 + in.Length
		for n := off; n < end; n++ {
			if _, err := ParseInfo(data[:n], off, tab.Order, tab.PtrSize); err == nil {
				t.Errorf("entry %d: block cut to %d of %d bytes parsed", i, n-off, end-off)
			}
		}
		checked++
	}
	if checked < 4 {
		t.Errorf("%d info blocks checked", checked)
	}
}

package unwtab

import (
	"debug/elf"
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
)

// buildCases compiles the descriptor test programs for both targets, as
// relocatable objects and linked programs.
func buildCases(t *testing.T) map[string]hppa.Toolchain {
	t.Helper()
	dir := t.TempDir()
	src32, _ := filepath.Abs("../testdata/progs/frames.c")
	src64, _ := filepath.Abs("../testdata/progs/frames64.c")
	hppa.PA32.Need(t)
	hppa.PA64.Need(t)
	out := map[string]hppa.Toolchain{
		hppa.PA32.Build(t, dir, "frames32", src32, "-O1", "-g"):      hppa.PA32,
		hppa.PA32.Build(t, dir, "frames32.o", src32, "-O1", "-c"):    hppa.PA32,
		hppa.PA32.Build(t, dir, "frames32-O2", src32, "-O2"):         hppa.PA32,
		hppa.PA64.Build(t, dir, "frames64.o", src64, "-O1", "-c"):    hppa.PA64,
		hppa.PA64.Build(t, dir, "frames64-O0.o", src64, "-O0", "-c"): hppa.PA64,
	}
	out[hppa.PA64.Build(t, dir, "frames64", src64, append(append([]string{"-O1", "-g"}, hppa.Freestanding...), "-lgcc")...)] = hppa.PA64
	return out
}

func readTable(t *testing.T, path string) *Table {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := ReadTable(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tab
}

// compareWithReadelf checks every entry: region and descriptor as readelf
// -u prints them.
func compareWithReadelf(t *testing.T, tc hppa.Toolchain, path string) {
	t.Helper()
	want := tc.ReadelfUnwind(t, path)
	got := readTable(t, path)
	if len(got.Entries) != len(want) || len(want) == 0 {
		t.Fatalf("%s: %d entries, readelf has %d", path, len(got.Entries), len(want))
	}
	for i, w := range want {
		g := got.Entries[i]
		flags := g.Desc.Flags()
		if flags == nil {
			flags = []string{}
		}
		if g.Start != w.Start || g.End != w.End || !slices.Equal(flags, w.Flags) {
			t.Errorf("%s entry %d <%s>: got [%#x-%#x] %q, readelf [%#x-%#x] %q (words %#08x %#08x)",
				filepath.Base(path), i, w.Name, g.Start, g.End, flags, w.Start, w.End, w.Flags, g.Desc.W1, g.Desc.W2)
		}
	}
}

func TestTableMatchesReadelf(t *testing.T) {
	for path, tc := range buildCases(t) {
		t.Run(filepath.Base(path), func(t *testing.T) { compareWithReadelf(t, tc, path) })
	}
}

// TestTableCoversTheCases checks that the compiled programs really have
// the descriptor cases the readelf comparison is meant to cover.
func TestTableCoversTheCases(t *testing.T) {
	seen := map[string]bool{}
	for path := range buildCases(t) {
		for _, e := range readTable(t, path).Entries {
			d := e.Desc
			seen["leaf"] = seen["leaf"] || d.TotalFrameSize() == 0 && !d.SaveRP() && !d.Millicode()
			seen["big frame"] = seen["big frame"] || d.FrameBytes() > 8192
			seen["alloca"] = seen["alloca"] || d.SaveSP()
			seen["entry_fr"] = seen["entry_fr"] || d.EntryFR() >= 2
			seen["entry_gr"] = seen["entry_gr"] || d.EntryGR() >= 4
			seen["millicode"] = seen["millicode"] || d.Millicode()
		}
	}
	for _, c := range []string{"leaf", "big frame", "alloca", "entry_fr", "entry_gr", "millicode"} {
		if !seen[c] {
			t.Errorf("no entry exercises %s", c)
		}
	}
}

// TestEveryDescriptorBitMatchesReadelf writes each descriptor bit alone,
// then random words, into a copy of a real program's table and compares
// the decoding with readelf's: every bit position and field width is
// checked against binutils, not against our reading of the spec.
func TestEveryDescriptorBitMatchesReadelf(t *testing.T) {
	var path string
	var tc hppa.Toolchain
	for p, c := range buildCases(t) {
		if filepath.Base(p) == "frames64" {
			path, tc = p, c
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(SectionName)
	f.Close()
	n := int(sec.Size / EntrySize)
	rng := rand.New(rand.NewSource(1))
	var words [][2]uint32
	for b := 0; b < 32; b++ {
		words = append(words, [2]uint32{1 << b, 0}, [2]uint32{0, 1 << b})
	}
	for len(words) < 2*n*3 {
		words = append(words, [2]uint32{rng.Uint32(), rng.Uint32()})
	}
	dir := t.TempDir()
	for round := 0; len(words) > 0; round++ {
		img := slices.Clone(raw)
		for i := 0; i < n && len(words) > 0; i++ {
			off := int(sec.Offset) + i*EntrySize
			binary.BigEndian.PutUint32(img[off+8:], words[0][0])
			binary.BigEndian.PutUint32(img[off+12:], words[0][1])
			words = words[1:]
		}
		p := filepath.Join(dir, "patched")
		if err := os.WriteFile(p, img, 0o644); err != nil {
			t.Fatal(err)
		}
		compareWithReadelf(t, tc, p)
	}
}

func TestLookupIsInclusiveOfTheLastInstruction(t *testing.T) {
	tab := &Table{Entries: []Entry{{Start: 0x100, End: 0x108}, {Start: 0x110, End: 0x140}}}
	tab.sorted = []int{0, 1}
	for _, c := range []struct {
		addr uint64
		want int
	}{{0xfc, -1}, {0x100, 0}, {0x108, 0}, {0x10b, 0}, {0x10c, -1}, {0x110, 1}, {0x140, 1}, {0x144, -1}} {
		e, ok := tab.Lookup(c.addr)
		got := -1
		if ok {
			got = int(e.Start-0x100) / 0x10
		}
		if got != c.want {
			t.Errorf("Lookup(%#x) = entry %d, want %d", c.addr, got, c.want)
		}
	}
}

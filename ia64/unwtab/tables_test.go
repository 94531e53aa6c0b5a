package unwtab

import (
	"debug/elf"
	"fmt"
	"os"
	"strings"
	"testing"

	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
)

// readelfTreg is how binutils prints an X2/X4 target register: only the
// low 5 bits of the 7-bit register number (unw_print_xyreg).
func readelfTreg(x, ytreg uint8) string {
	switch {
	case x == 1:
		return fmt.Sprintf("b%d", ytreg&0x1f)
	case ytreg&0x80 != 0:
		return fmt.Sprintf("f%d", ytreg&0x1f)
	}
	return fmt.Sprintf("r%d", ytreg&0x1f)
}

// TestTablesAgreeWithReadelf assembles a suite using every unwind
// directive gas accepts, in both byte orders, as an object and linked,
// and checks the table and every record against readelf -u.
func TestTablesAgreeWithReadelf(t *testing.T) {
	src, err := os.ReadFile("../testdata/directives.s")
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range []bool{false, true} {
		for _, link := range []bool{false, true} {
			name := fmt.Sprintf("be=%v/link=%v", be, link)
			t.Run(name, func(t *testing.T) {
				path := crossia64.Build(t, t.TempDir(), "directives", string(src), be, link, "gsave")
				compareWithReadelf(t, path)
			})
		}
	}
}

func compareWithReadelf(t *testing.T, path string) {
	t.Helper()
	want := crossia64.ReadelfU(t, path)
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := ReadTable(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Warnings) > 0 {
		t.Errorf("warnings: %v", tab.Warnings)
	}
	if len(tab.Entries) != len(want) {
		t.Fatalf("%d entries, readelf has %d", len(tab.Entries), len(want))
	}
	formats := map[Format]bool{}
	ops := map[Op]bool{}
	truncated := 0
	for i, w := range want {
		e := &tab.Entries[i]
		if e.Start != w.Start || e.End != w.End || e.InfoOffset != w.InfoOffset {
			t.Errorf("entry %d: [%#x-%#x) info %#x, readelf [%#x-%#x) info %#x", i, e.Start, e.End, e.InfoOffset, w.Start, w.End, w.InfoOffset)
			continue
		}
		info, err := e.Info()
		if err != nil {
			t.Errorf("entry %d: %v", i, err)
			continue
		}
		if int(info.Version) != w.Version || uint64(info.Flags) != w.Flags || int(info.Length) != w.Length {
			t.Errorf("entry %d: v%d flags %#x len %d, readelf v%d flags %#x len %d", i, info.Version, info.Flags, info.Length, w.Version, w.Flags, w.Length)
		}
		recs, err := Decode(info.Desc)
		if err != nil {
			t.Errorf("entry %d: %v", i, err)
		}
		if len(recs) != len(w.Records) {
			t.Errorf("entry %d (%s): %d records, readelf %d", i, w.Function, len(recs), len(w.Records))
			continue
		}
		for j, r := range recs {
			formats[r.Format], ops[r.Op] = true, true
			got := r.String()
			if got == w.Records[j] {
				continue
			}
			// readelf truncates X2/X4 target registers to 5 bits. Show
			// from the raw bytes that the register is above 31, and that
			// truncating it gives readelf's text.
			if r.Op == OpSpillReg && r.YTReg&0x7f > 31 {
				trunc := strings.Replace(got, "treg="+tregName(r.X, r.YTReg), "treg="+readelfTreg(r.X, r.YTReg), 1)
				if trunc == w.Records[j] {
					truncated++
					t.Logf("%s: readelf prints %q; the record's treg byte is %#02x (register %d)", w.Function, w.Records[j], r.YTReg, r.YTReg&0x7f)
					continue
				}
			}
			t.Errorf("%s record %d: %q, readelf %q", w.Function, j, got, w.Records[j])
		}
		trimmed, pad := TrimPadding(recs)
		if pad+len(trimmed) != len(recs) {
			t.Errorf("padding count")
		}
	}
	if truncated == 0 {
		t.Errorf("the suite lost its X2/X4 records with target registers above r31")
	}
	for f := R1; f <= X4; f++ {
		if !formats[f] {
			t.Errorf("no %v record in the suite", f)
		}
	}
	for op := OpPrologue; op <= OpRestore; op++ {
		if !ops[op] {
			t.Errorf("no record of op %d in the suite", op)
		}
	}
}

// TestILP32TablesAgreeWithReadelf: the directive suite converted to an
// ELF32 (HP-UX ILP32) executable — 4-byte table words, info lengths in
// 4-byte words, 4-byte personality — reads entry for entry and record
// for record as readelf -u reads it, in both byte orders.
func TestILP32TablesAgreeWithReadelf(t *testing.T) {
	src, err := os.ReadFile("../testdata/directives.s")
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range []bool{false, true} {
		t.Run(fmt.Sprint("be=", be), func(t *testing.T) {
			dir := t.TempDir()
			exe := crossia64.Build(t, dir, "directives", string(src), be, true, "gsave")
			ilp32 := exe + ".ilp32"
			if err := crossia64.ToILP32(exe, ilp32); err != nil {
				t.Fatal(err)
			}
			f, err := elf.Open(ilp32)
			if err != nil {
				t.Fatal(err)
			}
			tab, err := ReadTable(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if tab.PtrSize != 4 || len(tab.Entries) == 0 {
				t.Fatalf("pointer size %d, %d entries", tab.PtrSize, len(tab.Entries))
			}
			compareWithReadelf(t, ilp32)
		})
	}
}

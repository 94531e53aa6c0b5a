package main

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coreunwind/coreunwind/internal/schematest"

	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/report"
)

// TestTablesPARISCJSONMatchesReadelf runs `coreunwind tables --format json`
// on programs compiled for both PA-RISC targets and compares every entry
// with readelf -u.
func TestTablesPARISCJSONMatchesReadelf(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		tc    hppa.Toolchain
		src   string
		flags []string
	}{
		{hppa.PA32, "frames.c", []string{"-O1", "-g"}},
		{hppa.PA64, "frames64.c", append(append([]string{"-O1"}, hppa.Freestanding...), "-lgcc")},
	} {
		c.tc.Need(t)
		src, _ := filepath.Abs(filepath.Join("..", "..", "pa64", "testdata", "progs", c.src))
		prog := c.tc.Build(t, dir, c.tc.Arch, src, c.flags...)
		var out, errb bytes.Buffer
		if code := run([]string{"tables", "--format", "json", prog}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.tc.Arch, code, errb.String())
		}
		var tab report.Tables
		schematest.Check(t, schematest.Example(t, "../../report/tables-json.md"), out.Bytes(), schematest.Subset, tablesArchFields...)
		if err := json.Unmarshal(out.Bytes(), &tab); err != nil {
			t.Fatal(err)
		}
		want := c.tc.ReadelfUnwind(t, prog)
		if tab.Arch != c.tc.Arch || tab.ByteOrder != "big" || tab.Section != ".PARISC.unwind" || len(tab.Entries) != len(want) {
			t.Fatalf("%s: arch %s order %s section %s, %d entries (readelf %d)", c.tc.Arch, tab.Arch, tab.ByteOrder, tab.Section, len(tab.Entries), len(want))
		}
		for i, w := range want {
			e := tab.Entries[i]
			d := e.Descriptor
			if d == nil {
				d = []string{}
			}
			if uint64(e.Start) != w.Start || uint64(e.End) != w.End || !slices.Equal(d, w.Flags) {
				t.Errorf("%s entry %d: %#x-%#x %q, readelf <%s> %#x-%#x %q", c.tc.Arch, i, uint64(e.Start), uint64(e.End), d, w.Name, w.Start, w.End, w.Flags)
			}
			if e.Function != nil && *e.Function != w.Name && !isMillicodeAt(t, prog, *e.Function, w.Start) {
				t.Errorf("%s entry %d: function %s, readelf <%s>", c.tc.Arch, i, *e.Function, w.Name)
			}
		}
	}
}

// isMillicodeAt reports whether name is a millicode symbol
// (STT_PARISC_MILLI, type 13) at addr in prog. readelf -u names an entry
// by the nearest function symbol and skips millicode symbols, so it
// prints <__moddi3+0x6f8> for the entry that starts at $$divU; coreunwind
// names the millicode routine. The symbol table is the judge.
func isMillicodeAt(t *testing.T, prog, name string, addr uint64) bool {
	t.Helper()
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Name == name && s.Value == addr && elf.ST_TYPE(s.Info) == 13 {
			return true
		}
	}
	return false
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/schematest"

	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
	"github.com/coreunwind/coreunwind/report"
)

// coreunwind tables on IA-64 objects of both byte orders lists readelf
// -u's entries with the same records; the zero padding is counted in
// padding_records. (Records where readelf truncates a register are
// checked from the raw bytes in package ia64; here they are skipped.)
func TestTablesIA64MatchReadelf(t *testing.T) {
	src, err := os.ReadFile("../../ia64/testdata/directives.s")
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range []bool{false, true} {
		t.Run(fmt.Sprint("be=", be), func(t *testing.T) {
			exe := crossia64.Build(t, t.TempDir(), "directives", string(src), be, true, "gsave")
			want := crossia64.ReadelfU(t, exe)
			code, stdout, stderr := runCLI("tables", "--format", "json", exe)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got report.Tables
			schematest.Check(t, schematest.Example(t, "../../report/tables-json.md"), []byte(stdout), schematest.Subset, tablesArchFields...)
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatal(err)
			}
			if got.Arch != "ia64" || got.Section != ".IA_64.unwind" || got.ByteOrder != map[bool]string{false: "little", true: "big"}[be] {
				t.Errorf("arch %q section %q byte order %q", got.Arch, got.Section, got.ByteOrder)
			}
			if len(got.Entries) != len(want) {
				t.Fatalf("%d entries, readelf %d", len(got.Entries), len(want))
			}
			for i, w := range want {
				e := got.Entries[i]
				if uint64(e.Start) != w.Start || uint64(e.End) != w.End || e.Function == nil || *e.Function != w.Function {
					t.Errorf("entry %d: %#x-%#x %v, readelf %#x-%#x %s", i, e.Start, e.End, e.Function, w.Start, w.End, w.Function)
				}
				pad := 0
				if e.PaddingRecords != nil {
					pad = *e.PaddingRecords
				}
				if len(e.Records)+pad != len(w.Records) {
					t.Errorf("%s: %d records + %d padding, readelf %d", w.Function, len(e.Records), pad, len(w.Records))
					continue
				}
				for j, r := range e.Records {
					if r != w.Records[j] && !strings.Contains(r, "treg=") {
						t.Errorf("%s: %q, readelf %q", w.Function, r, w.Records[j])
					}
				}
				for _, r := range w.Records[len(e.Records):] {
					if r != "R1:prologue(rlen=0)" {
						t.Errorf("%s: padding record %q", w.Function, r)
					}
				}
			}
		})
	}
}

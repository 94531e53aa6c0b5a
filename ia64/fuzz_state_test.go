package ia64

import (
	"bytes"
	"debug/elf"
	"testing"

	"github.com/coreunwind/coreunwind/ia64/unwtab"
	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
)

// FuzzState: any descriptor records give an unwind state and a script at
// any slot, or an error; nothing panics. Seeds: every descriptor area of
// the directive suite.
func FuzzState(f *testing.F) {
	f.Add([]byte{0x06, 0xe6, 0x00, 0xb1, 0x21, 0x2f, 0xc0, 0x02})
	for _, obj := range crossia64.DirectiveSuite(f, "testdata/directives.s") {
		ef, err := elf.NewFile(bytes.NewReader(obj))
		if err != nil {
			continue
		}
		if tab, err := unwtab.ReadTable(ef); err == nil {
			for i := range tab.Entries {
				if in, err := tab.Entries[i].Info(); err == nil {
					f.Add(in.Desc)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, _ := unwtab.Decode(b)
		pr := uint64(0xffff)
		for _, target := range []int64{0, 1, 7, int64(3 * len(b))} {
			if sr, err := buildState(recs, target, &pr); err == nil {
				_ = compile(sr)
			}
		}
	})
}

package minidump

import (
	"os"
	"testing"
)

// FuzzParse: no input panics, hangs or allocates by a size it claims;
// what Parse returns stays within the input.
func FuzzParse(f *testing.F) {
	f.Add(crafted())
	if real, err := os.ReadFile("testdata/core2md-x86_64.dmp"); err == nil {
		f.Add(real)
	} else {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			return
		}
		for _, r := range d.Memory {
			if r.Avail > r.Size || r.Offset+r.Avail > uint64(len(data)) {
				t.Fatalf("memory range %+v outside the %d-byte file", r, len(data))
			}
			_ = d.Bytes(r)
		}
		for _, th := range d.Threads {
			th.Context.Registers()
			th.Context.GRegs()
			th.Context.FPRegs()
		}
		for _, m := range d.Modules {
			_, _, _ = m.DebugID(), m.BuildID(), m.DebugFile()
		}
	})
}

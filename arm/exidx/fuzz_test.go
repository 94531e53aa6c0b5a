package exidx

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// opsObjects assembles testdata/ops.s (every opcode class) and links it
// into a shared object: a relocatable and a linked table.
func opsObjects(f *testing.F) [][]byte {
	arm := testenv.ARMHF
	dir := f.TempDir()
	obj, so := filepath.Join(dir, "ops.o"), filepath.Join(dir, "ops.so")
	testenv.Build(f, arm.Triple+"-as", "-o", obj, "testdata/ops.s")
	testenv.Build(f, arm.Triple+"-ld", "-shared", "-o", so, obj)
	var out [][]byte
	for _, p := range []string{obj, so} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzDecode: any bytes decode into ops that cover them exactly, each
// with a readelf-style string.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0xb2, 0x81, 0x02, 0xc9, 0x87, 0xa7, 0x84, 0x00, 0xb0})
	f.Add([]byte{0xb2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0x80, 0x00, 0xb1, 0x13, 0xc7, 0x00, 0xd8, 0x9d})
	f.Add([]byte{0xc8})
	f.Fuzz(func(t *testing.T, code []byte) {
		ops := Decode(code)
		n := 0
		for _, op := range ops {
			if len(op.Bytes) == 0 || op.String() == "" {
				t.Fatalf("op %+v: empty", op)
			}
			n += len(op.Bytes)
		}
		if n != len(code) {
			t.Fatalf("ops cover %d of %d bytes", n, len(code))
		}
	})
}

// FuzzReadTable: any object gives a table or an error, and every entry's
// unwind data reads without panicking, bounded by the sections' sizes.
func FuzzReadTable(f *testing.F) {
	for _, b := range opsObjects(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ef, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			return
		}
		tab, err := ReadTable(ef)
		if err != nil {
			return
		}
		for i := range tab.Entries {
			u, _ := tab.Entries[i].Unwind()
			if u != nil && len(u.Code) > 3+4*255 {
				t.Fatalf("entry %d: %d opcode bytes, more than a model can hold", i, len(u.Code))
			}
			if u != nil {
				Decode(u.Code)
			}
		}
		tab.Lookup(0x1000)
	})
}

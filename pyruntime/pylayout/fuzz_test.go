package pylayout

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// FuzzFromDebugOffsets reads _Py_DebugOffsets from bytes the fuzzer
// writes: whatever they are, it returns an error or a layout whose
// offsets are inside their structs, and never panics.
func FuzzFromDebugOffsets(f *testing.F) {
	good := savedDebugOffsets313(f)
	f.Add(good)
	f.Add(good[:100])
	ft := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(ft[16:], 1)
	f.Add(ft)
	f.Add([]byte(DebugCookie))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			l, err := FromDebugOffsets(b, order)
			if err != nil {
				continue
			}
			checkBounded(t, reflect.ValueOf(l))
		}
	})
}

// checkBounded fails where an offset is beyond any struct CPython has.
func checkBounded(t *testing.T, v reflect.Value) {
	t.Helper()
	switch {
	case v.Type() == reflect.TypeFor[Offset]():
		if v.Int() >= maxStructSize {
			t.Fatalf("offset %d", v.Int())
		}
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			checkBounded(t, v.Field(i))
		}
	}
}

// FuzzFromLibName: any file name is a CPython 3 version and build, or
// not one, without panicking.
func FuzzFromLibName(f *testing.F) {
	for _, s := range []string{"libpython3.11.so.1.0", "libpython3.7dm.so", "python3.13t", "libpython3.", "python3.1234", "libpython3.8.a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		v, b, ok := FromLibName(name)
		if ok && (v.Major != 3 || v.Minor < 0 || v.Minor > 999 || b > Debug|FreeThreaded) {
			t.Fatalf("%q: %s %s", name, v, b)
		}
	})
}

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

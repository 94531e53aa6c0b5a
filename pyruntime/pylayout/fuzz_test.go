package pylayout

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
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

// pyLikeSource declares a few structs under CPython's names, so that the
// DWARF seed of FuzzFromDWARF has members for the reader to find.
const pyLikeSource = `typedef struct _object { long ob_refcnt; struct _typeobject *ob_type; } PyObject;
typedef struct { PyObject ob_base; long ob_size; } PyVarObject;
typedef struct _typeobject { PyVarObject ob_base; const char *tp_name; unsigned long tp_flags; } PyTypeObject;
typedef struct { PyVarObject ob_base; PyObject *ob_item[1]; } PyTupleObject;
typedef struct { PyObject ob_base; long length; long hash; struct { unsigned int interned:2; unsigned int kind:3; unsigned int compact:1; unsigned int ascii:1; unsigned int ready:1; unsigned int :24; } state; } PyASCIIObject;
enum _frameowner { FRAME_OWNED_BY_THREAD, FRAME_OWNED_BY_GENERATOR };
PyTypeObject t; PyTupleObject u; PyASCIIObject a; enum _frameowner o;
int main(void) { return 0; }
`

// FuzzFromDWARF reads layouts from DWARF the fuzzer writes (.debug_info,
// .debug_abbrev, .debug_str): it returns an error or a layout, never
// panics, and follows no type chain forever.
func FuzzFromDWARF(f *testing.F) {
	prog := testenv.BuildC(f, f.TempDir(), "pylike", pyLikeSource, "-g", "-gdwarf-4")
	ef, err := elf.Open(prog)
	if err != nil {
		f.Fatal(err)
	}
	sec := func(name string) []byte {
		s := ef.Section(name)
		if s == nil {
			f.Fatalf("%s has no %s", prog, name)
		}
		b, err := s.Data()
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(sec(".debug_info"), sec(".debug_abbrev"), sec(".debug_str"))
	ef.Close()
	f.Fuzz(func(t *testing.T, info, abbrev, str []byte) {
		d, err := dwarf.New(abbrev, nil, nil, info, nil, nil, nil, str)
		if err != nil {
			return
		}
		for _, v := range []Version{{3, 6}, {3, 11}, {3, 13}} {
			if l, err := FromDWARF(d, binary.LittleEndian, v, Release); err == nil {
				checkBounded(t, reflect.ValueOf(l))
			}
		}
	})
}

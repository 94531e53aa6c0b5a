package pylayout

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// savedDebugOffsets313 is the _Py_DebugOffsets table of pyenv's 3.13.0
// libpython, as genlayout saved it (testdata/debugoffsets-3.13.0.bin).
func savedDebugOffsets313(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "debugoffsets-3.13.0.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkAgainstTable: a layout read from _Py_DebugOffsets agrees with the
// generated one in every member the table describes, describes most of
// them, and once completed equals it.
func checkAgainstTable(t *testing.T, b []byte) {
	t.Helper()
	got, err := FromDebugOffsets(b, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != (Version{3, 13}) || got.Build != Release || got.Source != FromDebugTable {
		t.Fatalf("version %s build %s source %s", got.Version, got.Build, got.Source)
	}
	want, err := Lookup(got.Version, got.Build)
	if err != nil {
		t.Fatal(err)
	}
	present := 0
	var walk func(prefix string, g, w reflect.Value)
	walk = func(prefix string, g, w reflect.Value) {
		if g.Kind() == reflect.Struct && g.Type() != reflect.TypeFor[Version]() {
			for i := range g.NumField() {
				walk(prefix+"."+g.Type().Field(i).Name, g.Field(i), w.Field(i))
			}
			return
		}
		if g.Type() == reflect.TypeFor[Offset]() && Offset(g.Int()).Present() {
			present++
			if g.Int() != w.Int() {
				t.Errorf("%s: _Py_DebugOffsets says %d, the headers %d", prefix[1:], g.Int(), w.Int())
			}
		}
	}
	walk("", reflect.ValueOf(got), reflect.ValueOf(want))
	if present < 35 {
		t.Errorf("only %d members from _Py_DebugOffsets", present)
	}
	sameLayout(t, "completed", got.Complete(want), want)
}

// TestDebugOffsetsMatchTable reads the table saved from 3.13.0's
// libpython and, where pyenv's 3.13 is installed, the one in its library
// now.
func TestDebugOffsetsMatchTable(t *testing.T) {
	t.Run("saved", func(t *testing.T) { checkAgainstTable(t, savedDebugOffsets313(t)) })
	libs, _ := filepath.Glob(filepath.Join(pyenvRoot(), "versions", "3.13.*", "lib", "libpython3.13.so.1.0"))
	for _, lib := range libs {
		t.Run(lib, func(t *testing.T) {
			f, err := elf.Open(lib)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			b, err := DebugOffsetsInELF(f)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstTable(t, b)
		})
	}
}

// TestDebugOffsetsRejected: what is not a 3.13 table, or claims offsets
// outside its structs, is an error, not a layout.
func TestDebugOffsetsRejected(t *testing.T) {
	good := savedDebugOffsets313(t)
	patch := func(off int, v uint64) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint64(b[off:], v)
		return b
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrNoDebugOffsets},
		{"no cookie", append([]byte("ydebugpy"), good[8:]...), ErrNoDebugOffsets},
		{"truncated", good[:DebugOffsetsSize-1], ErrNoDebugOffsets},
		{"3.14", patch(8, 0x030e00f0), ErrUnknownVersion},
		{"free_threaded 2", patch(16, 2), ErrNoDebugOffsets},
		{"runtime size 0", patch(24, 0), ErrNoDebugOffsets},
		{"huge interpreter", patch(48, 1<<40), ErrNoDebugOffsets},
		{"threads_head past the interpreter", patch(72, 1<<30), ErrNoDebugOffsets},
		{"GIL holder before the GIL", patch(8+8*17, 0), ErrNoDebugOffsets},
	} {
		if _, err := FromDebugOffsets(tc.b, binary.LittleEndian); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}

package pylayout

import (
	"debug/dwarf"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// dwarfOf is the DWARF of the ELF file at path, from its separate debug
// file when it has one installed.
func dwarfOf(t *testing.T, path string) *dwarf.Data {
	t.Helper()
	o, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	if _, err := o.AttachDebugFile(nil); err != nil {
		t.Logf("%s: %v (using its own DWARF)", path, err)
	}
	d, err := o.DWARF()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d
}

// sameLayout fails the test where two layouts of one version differ in
// any member (their sources aside).
func sameLayout(t *testing.T, what string, got, want Layout) {
	t.Helper()
	got.Source, want.Source = 0, 0
	if reflect.DeepEqual(got, want) {
		return
	}
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range gv.NumField() {
		if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
			t.Errorf("%s: %s\n got %+v\nwant %+v", what, gv.Type().Field(i).Name, gv.Field(i).Interface(), wv.Field(i).Interface())
		}
	}
}

// TestDWARFMatchesTableDebian: the layouts read from Debian's python3.11
// debug information (python3.11-dbg: libpython3.11's debug file, and the
// Py_DEBUG interpreter python3.11d) equal the table generated from the
// headers, release and debug: two independent measurements of one build.
func TestDWARFMatchesTableDebian(t *testing.T) {
	for _, tc := range []struct {
		file  string
		build Build
	}{
		{"/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", Release},
		{"/usr/bin/python3.11d", Debug},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			if _, err := os.Stat(tc.file); err != nil {
				testenv.Unavailable(t, "Debian's python3.11 and python3.11-dbg: "+err.Error())
			}
			got, err := FromDWARF(dwarfOf(t, tc.file), binary.LittleEndian, Version{3, 11}, tc.build)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Lookup(Version{3, 11}, tc.build)
			if err != nil {
				t.Fatal(err)
			}
			if got.Source != FromDWARFInfo {
				t.Errorf("source %s", got.Source)
			}
			sameLayout(t, tc.file, got, want)
		})
	}
}

// TestDWARFMatchesTablePyenv: the same for each libpython under pyenv
// (built with -g): part of the version matrix (bench/pyversions.sh), as
// CI machines have no pyenv.
func TestDWARFMatchesTablePyenv(t *testing.T) {
	libs, _ := filepath.Glob(filepath.Join(pyenvRoot(), "versions", "3.*", "lib", "libpython3.*.so.1.0"))
	testenv.NeedPyVersions(t, len(libs), pyenvRoot())
	for _, lib := range libs {
		t.Run(filepath.Base(lib), func(t *testing.T) {
			var v Version
			var build Build
			if !parseLibName(filepath.Base(lib), &v, &build) {
				t.Fatalf("cannot tell the version of %s", lib)
			}
			got, err := FromDWARF(dwarfOf(t, lib), binary.LittleEndian, v, build)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Lookup(v, build)
			if err != nil {
				t.Fatal(err)
			}
			sameLayout(t, lib, got, want)
		})
	}
}

func pyenvRoot() string {
	if r := os.Getenv("PYENV_ROOT"); r != "" {
		return r
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".pyenv")
}

package pylayout

import (
	"debug/elf"
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestBuildFromSymbols: Debian's Py_DEBUG interpreter (python3.11-dbg)
// is told apart from its release libpython by their dynamic symbols.
func TestBuildFromSymbols(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Build
	}{
		{"/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", Release},
		{"/usr/bin/python3.11d", Debug},
	} {
		if _, err := os.Stat(tc.file); err != nil {
			testenv.Unavailable(t, "Debian's python3.11 and python3.11-dbg: "+err.Error())
		}
		f, err := elf.Open(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		syms, err := f.DynamicSymbols()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		defined := map[string]bool{}
		for _, s := range syms {
			if s.Section != elf.SHN_UNDEF {
				defined[s.Name] = true
			}
		}
		if got := BuildFromSymbols(func(n string) bool { return defined[n] }); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.file, got, tc.want)
		}
	}
}

func TestVersionFromHex(t *testing.T) {
	if v := VersionFromHex(0x030b07f0); v != (Version{3, 11}) {
		t.Errorf("0x030b07f0: %s", v)
	}
	if v := VersionFromHex(0x030d00f0); v != (Version{3, 13}) {
		t.Errorf("0x030d00f0: %s", v)
	}
}

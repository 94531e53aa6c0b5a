package e2e

import (
	"debug/elf"
	"regexp"
	"strconv"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

var fdeRangeRE = regexp.MustCompile(`FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)`)

// expectNoFDE makes sure the named functions really have no CFI (as
// readelf sees .eh_frame and .debug_frame), so a test about CFI-less frames
// tests what it claims to.
func expectNoFDE(t *testing.T, exe string, funcs ...string) {
	t.Helper()
	readelf := testenv.NeedTool(t, "readelf")
	out := runTool(t, readelf, "--debug-dump=frames", exe)
	addrs := symbolAddrs(t, exe)
	for _, m := range fdeRangeRE.FindAllStringSubmatch(out, -1) {
		lo, _ := strconv.ParseUint(m[1], 16, 64)
		hi, _ := strconv.ParseUint(m[2], 16, 64)
		for _, fn := range funcs {
			if a, ok := addrs[fn]; ok && a >= lo && a < hi {
				t.Fatalf("%s has an FDE (pc=%s..%s); the test program was not built without CFI", fn, m[1], m[2])
			}
		}
	}
	for _, fn := range funcs {
		if _, ok := addrs[fn]; !ok {
			t.Fatalf("%s: no symbol %s", exe, fn)
		}
	}
}

// symbolAddrs returns the function symbols of an ELF file by name.
func symbolAddrs(t *testing.T, path string) map[string]uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	out := map[string]uint64{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			out[s.Name] = s.Value
		}
	}
	return out
}

// buildID returns the hex GNU build ID of an ELF file, or "".
func buildID(t *testing.T, path string) string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			continue
		}
		for len(data) >= 12 {
			nsz := f.ByteOrder.Uint32(data[0:])
			dsz := f.ByteOrder.Uint32(data[4:])
			typ := f.ByteOrder.Uint32(data[8:])
			name := align4(uint64(nsz))
			desc := align4(uint64(dsz))
			if uint64(len(data)) < 12+name+desc {
				break
			}
			if typ == 3 && nsz == 4 && string(data[12:15]) == "GNU" {
				return hexString(data[12+name : 12+name+uint64(dsz)])
			}
			data = data[12+name+desc:]
		}
	}
	return ""
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

package live

import (
	"testing"
)

var mapsSeeds = []string{
	"55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1312 /usr/bin/cat\n" +
		"7ffd1c1e0000-7ffd1c201000 rw-p 00000000 00:00 0                          [stack]\n" +
		"7f0000000000-7f0000001000 r-xp 00001000 08:01 99 /tmp/a file with spaces (deleted)\n" +
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n",
	"garbage\n1-0 rwxp 0 0 0\nzz-yy r--p 00 00:00 0\n",
	"",
}

// FuzzParseMaps: /proc/PID/maps lines of any shape parse without
// panicking into mappings that end above where they start.
func FuzzParseMaps(f *testing.F) {
	for _, s := range mapsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range parseMaps(b) {
			if m.End <= m.Start || len(m.Perms) != 4 {
				t.Fatalf("bad mapping %+v", m)
			}
			_ = m.readable() || m.writable() || m.executable() || m.shared() || m.fileBacked() || m.special()
		}
	})
}

// FuzzParseSmaps: /proc/PID/smaps of any shape parses without panicking.
func FuzzParseSmaps(f *testing.F) {
	f.Add([]byte("7f0000000000-7f0000001000 rw-p 00000000 00:00 0\nAnonymous:     4 kB\nVmFlags: rd wr mr mw me ac sd\n"))
	f.Add([]byte("Anonymous: 4 kB\n55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1312 /usr/bin/a: b\nSwap: x kB\nVmFlags: dd\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseSmaps(b)
	})
}

// FuzzTrimAuxv: an auxiliary vector of any length is cut at a whole
// entry or left whole.
func FuzzTrimAuxv(f *testing.F) {
	f.Add([]byte{33, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7}, 8)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0}, 4)
	f.Fuzz(func(t *testing.T, b []byte, ptr int) {
		ptr = 4 << (ptr & 1)
		got := trimAuxv(b, ptr)
		if len(got) > len(b) || (len(got) != len(b) && len(got)%(2*ptr) != 0) {
			t.Fatalf("trimAuxv(%d bytes, %d) = %d bytes", len(b), ptr, len(got))
		}
	})
}

// FuzzXSaveLayout: an XSAVE area of any length and content gives no
// layout or whole records of features the area says it holds.
func FuzzXSaveLayout(f *testing.F) {
	area := make([]byte, 2432)
	area[xsaveXCR0] = 0xe7 // x87, SSE, AVX, AVX-512
	f.Add(area)
	f.Add(area[:xsaveXCR0+4])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		d := xsaveLayout(b)
		if len(d)%16 != 0 {
			t.Fatalf("a layout of %d bytes: not whole records", len(d))
		}
		for ; len(d) > 0; d = d[16:] {
			if ft := le.Uint32(d); ft < firstExtFeature || ft >= maxXFeatures || le.Uint64(b[xsaveXCR0:])&(1<<ft) == 0 {
				t.Fatalf("a record of feature %d the area does not hold", ft)
			}
		}
	})
}

package live

import (
	"testing"
)

func TestParseMapsLine(t *testing.T) {
	tests := []struct {
		line string
		want mapping
		ok   bool
	}{
		{"55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1312                       /usr/bin/cat",
			mapping{Start: 0x55d0c0a00000, End: 0x55d0c0a01000, Perms: "r--p", Inode: 1312, Path: "/usr/bin/cat"}, true},
		{"7f0000000000-7f0000002000 r-xp 00001000 08:01 99 /tmp/a b  c (deleted)",
			mapping{Start: 0x7f0000000000, End: 0x7f0000002000, Perms: "r-xp", Offset: 0x1000, Inode: 99, Path: "/tmp/a b  c (deleted)"}, true},
		{"7ffd1c1e0000-7ffd1c201000 rw-p 00000000 00:00 0                          [stack]",
			mapping{Start: 0x7ffd1c1e0000, End: 0x7ffd1c201000, Perms: "rw-p", Path: "[stack]"}, true},
		{"7f0000000000-7f0000001000 rw-s 00000000 00:05 0", mapping{Start: 0x7f0000000000, End: 0x7f0000001000, Perms: "rw-s"}, true},
		{"2000-1000 r--p 0 00:00 0", mapping{}, false},
		{"1000-2000 r-- 0 00:00 0", mapping{}, false},
		{"", mapping{}, false},
	}
	for _, tt := range tests {
		got, ok := parseMapsLine(tt.line)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseMapsLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseSmaps(t *testing.T) {
	in := "1000-2000 rw-p 00000000 00:00 0\n" +
		"Anonymous:          0 kB\nSwap:               4 kB\nVmFlags: rd wr\n" +
		"3000-4000 r--p 00000000 08:01 7 /lib/x.so\n" +
		"Anonymous:          0 kB\nVmFlags: rd dd\n"
	got := parseSmaps([]byte(in))
	if a := got[0x1000]; !a.anon || !a.flags["wr"] {
		t.Errorf("0x1000: %+v, want pages of its own (swapped) and wr", a)
	}
	if b := got[0x3000]; b.anon || !b.flags["dd"] {
		t.Errorf("0x3000: %+v, want no pages of its own and dd", b)
	}
}

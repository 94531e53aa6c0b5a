package corefile

import (
	"slices"
	"testing"
)

func TestCandidates(t *testing.T) {
	for _, tc := range []struct {
		path string
		main bool
		opts Options
		want []string
	}{
		{"/usr/bin/prog", true, Options{Executable: "./prog", SearchPath: []string{"/a", "/b"}},
			[]string{"./prog", "/usr/bin/prog", "/a/prog", "/b/prog"}},
		{"/usr/lib/libc.so.6", false, Options{Executable: "./prog", Sysroot: "/sr"},
			[]string{"/sr/usr/lib/libc.so.6"}},
		// The kernel marks unlinked files; the file is looked up without the mark.
		{"/tmp/prog (deleted)", true, Options{SearchPath: []string{"/a"}}, []string{"/tmp/prog", "/a/prog"}},
		// A hostile path must not leave the sysroot.
		{"../../etc/passwd", false, Options{Sysroot: "/sr"}, []string{"/sr/etc/passwd"}},
		{"/../../etc/passwd", false, Options{Sysroot: "/sr"}, []string{"/sr/etc/passwd"}},
		{"", false, Options{SearchPath: []string{"/a"}}, nil},
	} {
		got := candidates(&Module{Path: tc.path, Main: tc.main}, tc.opts)
		if !slices.Equal(got, tc.want) {
			t.Errorf("candidates(%q, main %v, %+v) = %q, want %q", tc.path, tc.main, tc.opts, got, tc.want)
		}
	}
	if NoteTypeName(NTPrstatus) != "NT_PRSTATUS" || NoteTypeName(0x999) != "NT_0x999" {
		t.Error("NoteTypeName")
	}
}

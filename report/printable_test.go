package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/usr/lib/libc.so.6", "/usr/lib/libc.so.6"},
		{"std::vector<int>::at(unsigned long) const", "std::vector<int>::at(unsigned long) const"},
		{"naïve/日本語", "naïve/日本語"}, // printable Unicode stays
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"title\x1b]0;x\x07", `title\x1b]0;x\a`},
		{"two\nlines\ttab\r", `two\nlines\ttab\r`},
		{"bad\xff\xfe", `bad\xff\xfe`},
		{"del\x7f c1\u009b", `del\x7f c1\u009b`},
		{"rtl\u202eevil", `rtl\u202eevil`}, // bidi override: reorders what follows on screen
		{"real \ufffd", "real \ufffd"},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestWritersEscapeInput: every text writer prints the strings of a
// hostile report escaped: the hpux style, the memory map, the tables.
func TestWritersEscapeInput(t *testing.T) {
	evil := func(s string) *string { s += "\x1b[2J\xff"; return &s }
	r := &Report{
		Mappings: []Mapping{{Start: 0x1000, End: 0x2000, Perms: "r-x", Path: evil("/lib/x")}},
		Threads: []Thread{{TID: 1, Crashed: true, Error: evil("stopped"), Frames: []Frame{
			{PC: 0x1100, Trust: "context", Function: evil("f"), Module: evil("/lib/x")},
		}}},
		Warnings: []string{*evil("warn")},
	}
	r.Core.Path = *evil("core")
	var text, hpux, tables bytes.Buffer
	if err := WriteTextOptions(&text, r, TextOptions{Maps: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHPUX(&hpux, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteTablesText(&tables, &Tables{File: *evil("/lib/x"), Section: ".eh_frame", Entries: []TableEntry{{Start: 1, End: 2, Function: evil("f")}}, Warnings: []string{*evil("w")}}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "hpux": hpux.String(), "tables": tables.String()} {
		if !utf8.ValidString(out) || strings.ContainsAny(out, "\x1b\x07\x7f") {
			t.Errorf("%s output holds raw escapes or bytes that are not UTF-8:\n%q", name, out)
		}
		if !strings.Contains(out, `f\x1b[2J\xff`) {
			t.Errorf("%s output lacks the escaped function name:\n%s", name, out)
		}
	}
	if !strings.Contains(text.String(), `/lib/x\x1b[2J\xff`+"\n") {
		t.Errorf("memory map path not escaped:\n%s", text.String())
	}
}

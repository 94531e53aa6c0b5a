package cliflag

import (
	"flag"
	"io"
	"testing"
)

func TestClosest(t *testing.T) {
	flags := []string{"format", "o", "threads", "max-frames", "no-fold", "no-group"}
	for _, tc := range []struct{ name, want string }{
		{"fromat", "format"},  // transposition: one edit
		{"formt", "format"},   // deletion
		{"threds", "threads"}, // deletion
		{"no-grop", "no-group"},
		{"x", ""},      // one edit from "o", but a one-letter name says nothing
		{"colour", ""}, // nothing near
		{"format", "format"},
	} {
		if got := Closest(tc.name, flags); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := Closest("tirage", []string{"triage", "tables", "help"}); got != "triage" {
		t.Errorf("Closest(tirage) = %q", got)
	}
}

func TestUnknownFlag(t *testing.T) {
	for _, arg := range []string{"--fromat", "-fromat", "--fromat=json"} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("format", "", "")
		err := fs.Parse([]string{arg})
		if got := UnknownFlag(err); got != "fromat" {
			t.Errorf("%s: UnknownFlag(%v) = %q", arg, err, got)
		}
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int("n", 0, "")
	if got := UnknownFlag(fs.Parse([]string{"-n", "x"})); got != "" {
		t.Errorf("a bad value is not an unknown flag: %q", got)
	}
}

package flagdoc

import (
	"reflect"
	"testing"
)

// TestSections: flags are read from the first cell of the tables under
// each heading only, with escaped pipes and several flags in one cell.
func TestSections(t *testing.T) {
	page := "# Title\n\n| `--top` | before any section |\n\n" +
		"## `cmd`\n\n| flag | meaning |\n|---|---|\n" +
		"| `--format text\\|json` | the format, not `--json` |\n" +
		"| `--on`, `--no-on` | both |\n| `-o FILE` | output |\n\n" +
		"Prose naming `--prose` is no row.\n\n## Other\n\n| `-v` | verbose |\n"
	got := Sections(page)
	want := map[string]Set{
		"cmd":   {"format": true, "on": true, "no-on": true, "o": true},
		"Other": {"v": true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sections = %v, want %v", got, want)
	}
}

// TestPrintedDefaults: the flag package's usage lines give the names.
func TestPrintedDefaults(t *testing.T) {
	usage := "Usage of x:\n  -cache-dir DIR\n    \tkeep it\n  -j int\n    \tjobs\n  -no_cache\n    \tno\n"
	want := Set{"cache-dir": true, "j": true, "no_cache": true}
	if got := PrintedDefaults([]byte(usage)); !reflect.DeepEqual(got, want) {
		t.Errorf("PrintedDefaults = %v, want %v", got, want)
	}
}

// TestCompare names each missing flag and where.
func TestCompare(t *testing.T) {
	msgs := Compare(Set{"a": true, "both": true}, Set{"both": true, "gone": true, "help": true}, "cmd", "docs/x.md", "Flags")
	want := []string{
		"`cmd` defines -a, but docs/x.md does not document it: add a row to its section \"## Flags\"",
		"docs/x.md documents --gone under \"## Flags\", but `cmd` defines no such flag",
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("Compare = %q, want %q", msgs, want)
	}
}

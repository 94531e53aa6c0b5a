package linetable

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
)

// oracle is what testdata/lines.py printed: a Python's own lines for the
// instructions of many code objects.
type oracle struct {
	Version [2]int
	Codes   []struct {
		Name      string
		First     int
		Size      int
		Table     string
		Lines     [][3]int // co_lines(): start, end, line (3.10+)
		Starts    [][2]int // dis.findlinestarts(): address, line (< 3.10)
		Positions []int    // co_positions()' lines, one a code unit (3.11+)
	}
}

// pythons are the interpreters to check against: Debian's python3.11,
// which CI machines have (a failure under CI=true when missing), and each
// pyenv version 3.6+ where pyenv is installed (not on CI machines).
func pythons(t *testing.T) []string {
	const debian = "/usr/bin/python3.11"
	var ps []string
	if _, err := os.Stat(debian); err != nil {
		testenv.Unavailable(t, "Debian's python3.11: "+err.Error())
	} else {
		ps = append(ps, debian)
	}
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		home, _ := os.UserHomeDir()
		root = filepath.Join(home, ".pyenv")
	}
	pyenv, _ := filepath.Glob(filepath.Join(root, "versions", "3.*", "bin", "python3"))
	return append(ps, pyenv...)
}

// TestLinesMatchPython decodes the line tables of real code objects (a
// sample with long line gaps, backward lines, loops, handlers,
// comprehensions, coroutines and a long function, and stdlib modules)
// and checks every instruction's line against what the Python that
// compiled them says.
func TestLinesMatchPython(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("testdata", "lines.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, py := range pythons(t) {
		t.Run(py, func(t *testing.T) {
			out, err := exec.Command(py, script).Output()
			if err != nil {
				t.Fatalf("%s %s: %v", py, script, err)
			}
			var o oracle
			if err := json.Unmarshal(out, &o); err != nil {
				t.Fatal(err)
			}
			f, ok := FormatOf(pylayout.Version{Major: o.Version[0], Minor: o.Version[1]})
			if !ok {
				t.Fatalf("no format for %v", o.Version)
			}
			checked := 0
			for _, c := range o.Codes {
				table, err := hex.DecodeString(c.Table)
				if err != nil {
					t.Fatal(err)
				}
				want := expected(t, f, c.Size, c.Lines, c.Starts, c.Positions)
				for addr, line := range want {
					if line == unknown {
						continue
					}
					checked++
					if got := Line(f, table, c.First, addr); got != line {
						t.Errorf("%s (first line %d): byte %d: line %d, Python says %d", c.Name, c.First, addr, got, line)
						break
					}
				}
				if got := Line(f, table, c.First, -1); got != c.First {
					t.Errorf("%s: before the first instruction: line %d, want %d", c.Name, got, c.First)
				}
			}
			if len(o.Codes) < 100 || checked < 10000 {
				t.Errorf("checked %d instructions of %d code objects: the oracle printed too little", checked, len(o.Codes))
			}
			t.Logf("%s (%s): %d instructions of %d code objects", py, f, checked, len(o.Codes))
		})
	}
}

// unknown marks instructions the oracle says nothing about.
const unknown = -2

// expected is the line of each even byte offset below size as Python
// said it, checking its two sayings against each other where it has two.
func expected(t *testing.T, f Format, size int, lines [][3]int, starts [][2]int, positions []int) []int {
	t.Helper()
	want := make([]int, size)
	for i := range want {
		want[i] = unknown
	}
	switch f {
	case Lnotab:
		for i, s := range starts {
			end := size
			if i+1 < len(starts) {
				end = starts[i+1][0]
			}
			for a := max(s[0], 0); a < end && a < size; a++ {
				want[a] = s[1]
			}
		}
	default:
		for _, r := range lines {
			for a := max(r[0], 0); a < r[1] && a < size; a++ {
				want[a] = r[2]
			}
		}
	}
	for unit, line := range positions {
		a := unit * codeUnit
		if a >= size {
			break
		}
		if want[a] != unknown && want[a] != line {
			t.Fatalf("byte %d: co_lines says line %d, co_positions %d", a, want[a], line)
		}
		want[a] = line
	}
	for a := 1; a < size; a += 2 {
		want[a] = unknown // instructions start at even offsets
	}
	return want
}

package triage

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// Labels map cores to their known bug: a labelled corpus, for `triage
// eval`. The file has one core a line, "BUG CORE": the bug's name (no
// spaces), then the core's name as triage names it or any tail of it
// that ends at a '/' or ':' (a path relative to the batch's directory,
// an archive member). Blank lines and lines starting with '#' are
// ignored. A core named twice is an error.
type Labels struct {
	bugOf map[string]string // core name (as written) -> bug
	names []string          // in file order
}

// maxLabelLine bounds one line of a labels file.
const maxLabelLine = 64 << 10

// ReadLabelsFile reads a labels file.
func ReadLabelsFile(path string) (*Labels, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l, err := ParseLabels(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// ParseLabels reads labels; an error names the line.
func ParseLabels(r io.Reader) (*Labels, error) {
	l := &Labels{bugOf: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxLabelLine)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		bug, core, ok := strings.Cut(line, " ")
		core = strings.TrimSpace(core)
		if !ok || core == "" {
			return nil, fmt.Errorf("line %d: want \"BUG CORE\"", n)
		}
		if _, dup := l.bugOf[core]; dup {
			return nil, fmt.Errorf("line %d: core %q labelled twice", n, core)
		}
		l.bugOf[core] = bug
		l.names = append(l.names, core)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return l, nil
}

// Len is the number of labelled cores.
func (l *Labels) Len() int { return len(l.names) }

// Bug returns the bug of the core triage names name, and the label's
// core as written: name itself or its longest tail that starts after a
// '/' or ':'.
func (l *Labels) Bug(name string) (bug, labelled string, ok bool) {
	for s := name; ; {
		if b, found := l.bugOf[s]; found {
			return b, s, true
		}
		i := strings.IndexAny(s, "/:")
		if i < 0 {
			return "", "", false
		}
		s = s[i+1:]
	}
}

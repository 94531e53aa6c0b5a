// Package flagdoc reads the flags a Markdown reference page documents and
// the flags a command defines, so that the commands' tests can check that
// the two agree (docs/flags.md for coreunwind, docs/beam.md for
// coreunwind-beam).
package flagdoc

import (
	"bytes"
	"flag"
	"regexp"
	"sort"
	"strings"
)

// Set is a set of flag names, without dashes.
type Set map[string]bool

// Sorted lists the names in order, for stable messages.
func (s Set) Sorted() []string {
	var names []string
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Builtin are the flags the flag package answers in every flag set.
var Builtin = Set{"h": true, "help": true}

// FlagsIn finds the flag names in a column of option specs: "-o FILE",
// "--debuginfod, --no-debuginfod", "--format text|json".
var FlagsIn = regexp.MustCompile(`(?:^|[\s,])--?([a-z][a-z0-9_-]*)`)

// codeSpan is an inline code span of a table cell.
var codeSpan = regexp.MustCompile("`(-[^`]*)`")

// Sections parses a reference page: for each "## " heading (its text
// without backticks), the flags in the first column of the tables under
// it. A row documents a flag by starting its first cell with the flag in
// a code span: | `--format text\|json` | ... |.
func Sections(page string) map[string]Set {
	sections := map[string]Set{}
	var cur Set
	for _, line := range strings.Split(page, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			cur = Set{}
			sections[strings.ReplaceAll(strings.TrimSpace(h), "`", "")] = cur
			continue
		}
		if cur == nil || !strings.HasPrefix(line, "|") {
			continue
		}
		for _, s := range codeSpan.FindAllStringSubmatch(FirstCell(line), -1) {
			if m := FlagsIn.FindStringSubmatch(s[1]); m != nil {
				cur[m[1]] = true
			}
		}
	}
	return sections
}

// FirstCell is a table row's first cell ("\|" is a | inside it).
func FirstCell(row string) string {
	row = strings.TrimPrefix(row, "|")
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			return row[:i]
		}
	}
	return row
}

// Defined is the set of flags fs defines.
func Defined(fs *flag.FlagSet) Set {
	s := Set{}
	fs.VisitAll(func(f *flag.Flag) { s[f.Name] = true })
	return s
}

// PrintedDefaults is the set of flags in the flag package's own usage
// text (FlagSet.PrintDefaults: "  -name type" lines), for a command
// whose flag set is not reachable from its tests.
func PrintedDefaults(usage []byte) Set {
	s := Set{}
	for _, line := range bytes.Split(usage, []byte("\n")) {
		if m := printedFlag.FindSubmatch(line); m != nil {
			s[string(m[1])] = true
		}
	}
	return s
}

var printedFlag = regexp.MustCompile(`^  -([a-zA-Z0-9_-]+)`)

// Dashed writes a flag name as the help does: -o, --format.
func Dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Compare returns, in order, a message for each flag that is defined but
// not documented, and each documented but not defined (built-in flags
// may be documented). command names the command, page and section where
// the reference documents it.
func Compare(defined, documented Set, command, page, section string) []string {
	var msgs []string
	for _, n := range defined.Sorted() {
		if !documented[n] {
			msgs = append(msgs, "`"+command+"` defines "+Dashed(n)+", but "+page+" does not document it: add a row to its section \"## "+section+"\"")
		}
	}
	for _, n := range documented.Sorted() {
		if !defined[n] && !Builtin[n] {
			msgs = append(msgs, page+" documents "+Dashed(n)+" under \"## "+section+"\", but `"+command+"` defines no such flag")
		}
	}
	return msgs
}

package main

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/flagdoc"
)

// flagReference is the page that documents every command and flag, as
// the messages name it; flagReferencePath is where the test reads it.
const (
	flagReference     = "docs/flags.md"
	flagReferencePath = "../../" + flagReference
)

// rootCommand is the name of the report command's flag set and of its
// section in the reference; a subcommand's is rootCommand + " " + name.
const rootCommand = "coreunwind"

// flagSets maps a command's name to the set of its flag names.
type flagSets map[string]flagdoc.Set

func (f flagSets) add(command, name string) {
	if f[command] == nil {
		f[command] = flagdoc.Set{}
	}
	f[command][name] = true
}

// definedFlags runs every command with -h and records the flags each
// one defined before parsing: the flags that really exist.
func definedFlags(t *testing.T) flagSets {
	t.Helper()
	var built []*flag.FlagSet
	flagSetBuilt = func(fs *flag.FlagSet) { built = append(built, fs) }
	t.Cleanup(func() { flagSetBuilt = nil })
	run([]string{"-h"}, io.Discard, io.Discard)
	for name := range subcommands {
		run([]string{name, "-h"}, io.Discard, io.Discard)
	}
	defined := flagSets{}
	for _, fs := range built {
		defined[fs.Name()] = flagdoc.Defined(fs)
	}
	return defined
}

// subcommandWord is a Usage line's word after "coreunwind" that names a
// subcommand (not "[flags]", "--format", "CORE").
var subcommandWord = regexp.MustCompile(`^[a-z]+$`)

// helpFlags parses the --help text: the flags listed under each
// command's section ("Flags", "Triage", "Tables") and the subcommands
// of its Usage lines.
func helpFlags(t *testing.T) (flags flagSets, usageCommands flagdoc.Set) {
	t.Helper()
	var buf bytes.Buffer
	printUsage(&buf)
	sections := map[string]string{"Flags": rootCommand, "Triage": rootCommand + " triage", "Tables": rootCommand + " tables", "Gcore": rootCommand + " gcore"}
	flags, usageCommands = flagSets{}, flagdoc.Set{}
	section, inUsage := "", false
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		line := sc.Text()
		if line != "" && line[0] != ' ' {
			word, _, _ := strings.Cut(line, " ")
			section = sections[strings.TrimSuffix(word, ":")]
			inUsage = word == "Usage:"
			continue
		}
		if inUsage {
			// "  coreunwind triage [flags] PATH...": a word after the
			// command that is not a flag or an argument names a subcommand.
			f := strings.Fields(line)
			if len(f) > 1 && f[0] == rootCommand && subcommandWord.MatchString(f[1]) {
				usageCommands[f[1]] = true
			}
			continue
		}
		if section == "" || !strings.HasPrefix(line, "  -") {
			continue
		}
		spec, _, _ := strings.Cut(strings.TrimPrefix(line, "  "), "  ")
		for _, m := range flagdoc.FlagsIn.FindAllStringSubmatch(spec, -1) {
			flags.add(section, m[1])
		}
	}
	return flags, usageCommands
}

// referenceFlags parses the flag reference: the flags of each
// "## `coreunwind ...`" section (keyed by the command's name).
func referenceFlags(t *testing.T) flagSets {
	t.Helper()
	b, err := os.ReadFile(flagReferencePath)
	if err != nil {
		t.Fatal(err)
	}
	doc := flagSets{}
	for heading, flags := range flagdoc.Sections(string(b)) {
		if heading == rootCommand || strings.HasPrefix(heading, rootCommand+" ") {
			doc[heading] = flags
		}
	}
	return doc
}

// TestFlagReference: the flags each command defines, the flags --help
// lists and the flags docs/flags.md documents are the same, command by
// command. A flag added to one and not the others fails here, naming
// the flag, the command and where it is missing.
func TestFlagReference(t *testing.T) {
	defined := definedFlags(t)
	help, _ := helpFlags(t)
	doc := referenceFlags(t)
	commands := flagdoc.Set{}
	for _, m := range []flagSets{defined, help, doc} {
		for c := range m {
			commands[c] = true
		}
	}
	for _, c := range commands.Sorted() {
		section := "`" + c + "`"
		for _, msg := range flagdoc.Compare(defined[c], doc[c], c, flagReference, section) {
			t.Error(msg)
		}
		for _, name := range defined[c].Sorted() {
			if !help[c][name] {
				t.Errorf("`%s` defines %s, but `coreunwind --help` does not list it (cmd/coreunwind/usage.go)", c, flagdoc.Dashed(name))
			}
		}
		for _, name := range help[c].Sorted() {
			if !defined[c][name] && !flagdoc.Builtin[name] {
				t.Errorf("`coreunwind --help` lists %s for `%s`, but `%s` defines no such flag", flagdoc.Dashed(name), c, c)
			}
			if !doc[c][name] {
				t.Errorf("`coreunwind --help` lists %s for `%s`, but %s does not document it under \"## %s\"", flagdoc.Dashed(name), c, flagReference, section)
			}
		}
	}
	// A parser that finds nothing would pass everything above.
	for _, c := range []string{rootCommand, rootCommand + " triage", rootCommand + " tables"} {
		if len(defined[c]) == 0 || len(doc[c]) == 0 || len(help[c]) == 0 {
			t.Errorf("`%s`: %d flags defined, %d documented, %d in --help: want some of each", c, len(defined[c]), len(doc[c]), len(help[c]))
		}
	}
}

// TestSubcommandReference: every subcommand the command dispatches has
// its section in docs/flags.md and its line in --help's Usage, and every
// subcommand either names exists.
func TestSubcommandReference(t *testing.T) {
	doc := referenceFlags(t)
	_, usage := helpFlags(t)
	for _, name := range []string{"help", "tables", "triage"} {
		if subcommands[name] == nil {
			t.Errorf("subcommand %q is gone from the dispatcher (main.go)", name)
		}
	}
	for name := range subcommands {
		if _, ok := doc[rootCommand+" "+name]; !ok {
			t.Errorf("subcommand `coreunwind %s` has no section \"## `coreunwind %s`\" in %s", name, name, flagReference)
		}
		if !usage[name] {
			t.Errorf("subcommand `coreunwind %s` has no line in the Usage of `coreunwind --help`", name)
		}
	}
	for c := range doc {
		if name, ok := strings.CutPrefix(c, rootCommand+" "); ok && subcommands[name] == nil {
			t.Errorf("%s documents `%s`, but coreunwind has no subcommand %q", flagReference, c, name)
		}
	}
	for name := range usage {
		if subcommands[name] == nil {
			t.Errorf("`coreunwind --help` shows `coreunwind %s` in its Usage, but coreunwind has no subcommand %q", name, name)
		}
	}
}

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/internal/cliflag"
)

// What a positional argument is, told by its content, not its name or
// its place on the command line: gdb takes EXECUTABLE CORE, coreunwind
// CORE EXECUTABLE, and users type both.

// argKind is what a file named on the command line is to the commands.
type argKind int

const (
	// argCore is anything that is not an uncompressed ELF executable or
	// library: an ELF core, an HP-UX core (no magic number to know it
	// by), a compressed core; corefile.Open says what is wrong with it
	// if it is none of those.
	argCore argKind = iota
	argExecutable
	// argCompressedELF is a compressed executable or library: a core
	// needs the file itself (its pages are mapped from it).
	argCompressedELF
)

// classifyArg reads the start of the file at path (through compression)
// and says what it is; an error is the file's (missing, unreadable).
func classifyArg(path string) (argKind, error) {
	s, err := corefile.SniffFile(path)
	switch {
	case err != nil:
		return argCore, err
	case s.Kind == corefile.KindELF && s.Compression != "":
		return argCompressedELF, nil
	case s.Kind == corefile.KindELF:
		return argExecutable, nil
	}
	return argCore, nil
}

// coreAndExecutable orders the report command's one or two positional
// arguments as CORE [EXECUTABLE], whichever order they were given in. A
// file that cannot be read is left where it is, for the analysis to
// report. Executables only, no core, is an error wrapping errNoCoreGiven.
func coreAndExecutable(pos []string) (core, exe string, err error) {
	kinds := make([]argKind, len(pos))
	for i, p := range pos {
		kinds[i], _ = classifyArg(p)
	}
	switch {
	case len(pos) == 1 && kinds[0] == argExecutable:
		return "", "", fmt.Errorf("%s: %w: it is an executable; give its core too (coreunwind CORE [EXECUTABLE])", pos[0], errNoCoreGiven)
	case len(pos) == 1:
		return pos[0], "", nil
	case kinds[0] == argExecutable && kinds[1] == argExecutable:
		return "", "", fmt.Errorf("%s, %s: %w: both are executables", pos[0], pos[1], errNoCoreGiven)
	case kinds[0] == argExecutable:
		return pos[1], pos[0], nil // gdb's order: EXECUTABLE CORE
	}
	return pos[0], pos[1], nil
}

// errNoCoreGiven is an invocation that names executables only: like a
// file that is not a core, exit code 2 (the README's "not a core").
var errNoCoreGiven = errors.New("not a core file")

// mistypedSubcommand returns the subcommand arg was probably meant to be
// ("triage" for "tirage"), or "" when arg is a file (a core may be
// named anything) or is near no subcommand.
func mistypedSubcommand(arg string) string {
	if strings.HasPrefix(arg, "-") {
		return "" // a flag: parseFlags judges it
	}
	if strings.HasPrefix(arg, "core") {
		return "" // the kernel's name for a core (core, core.PID), one edit from gcore
	}
	near := cliflag.Closest(arg, slices.Sorted(maps.Keys(subcommands)))
	if near == "" {
		return ""
	}
	if _, err := os.Stat(arg); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return near
}

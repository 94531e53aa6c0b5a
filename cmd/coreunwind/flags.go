package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/cliflag"
	"github.com/coreunwind/coreunwind/internal/exitcode"
)

// stringList is a repeatable flag (--debug-dir A --debug-dir B).
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// symbolCacheFlags adds --cache-dir and --no-cache, the on-disk symbol
// cache's flags.
func symbolCacheFlags(fs *flag.FlagSet) (dir *string, off *bool) {
	dir = fs.String("cache-dir", "", "keep the symbol cache in `DIR` (default $XDG_CACHE_HOME/coreunwind or ~/.cache/coreunwind)")
	off = fs.Bool("no-cache", false, "neither read nor write the symbol cache (also: "+elfx.NoCacheEnv+"=1)")
	return dir, off
}

// newFlagSet returns a flag set that prints nothing itself: parseFlags
// says what went wrong, in the command's words.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if flagSetBuilt != nil {
		flagSetBuilt(fs)
	}
	return fs
}

// flagSetBuilt, when set, is given every flag set a command builds: the
// documentation test reads the flags each command really defines from it
// (they are defined where they are parsed, so there is no list to export).
var flagSetBuilt func(*flag.FlagSet)

// parseFlags parses a command's flags and positional arguments (in any
// order). On -h or --help it prints the usage on stdout; on a bad flag it
// prints one "coreunwind: ..." line on stderr, with the closest defined
// flag when one is near the unknown one. done says the command should
// return code without going further.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (pos []string, code int, done bool) {
	pos, err := cliflag.ParseInterleaved(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(stdout)
		return nil, exitcode.OK, true
	case err != nil:
		if name := cliflag.UnknownFlag(err); name != "" {
			err = fmt.Errorf("unknown flag %s", flagSpelling(name))
			if near := cliflag.Closest(name, cliflag.FlagNames(fs)); near != "" {
				err = fmt.Errorf("%w; did you mean %s?", err, flagSpelling(near))
			}
		}
		return nil, usageError(stderr, err), true
	}
	return pos, exitcode.OK, false
}

// flagSpelling is how the usage text writes a flag: -o, --format.
func flagSpelling(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

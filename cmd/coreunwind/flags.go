package main

import (
	"flag"
	"io"
	"strings"

	"github.com/coreunwind/coreunwind/elfx"
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

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if flagSetBuilt != nil {
		flagSetBuilt(fs)
	}
	return fs
}

// flagSetBuilt, when set, is given every flag set a command builds: the
// documentation test reads the flags each command really defines from it
// (they are defined where they are parsed, so there is no list to export).
var flagSetBuilt func(*flag.FlagSet)

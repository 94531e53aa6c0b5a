package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/elfx/debuginfod"
	"github.com/coreunwind/coreunwind/report"
)

// debuginfodFlags are --debuginfod and --no-debuginfod: fetching by build
// ID is on when DEBUGINFOD_URLS names a server, unless turned off.
type debuginfodFlags struct {
	on, off bool
}

func (d *debuginfodFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&d.on, "debuginfod", false, "fetch missing files by build ID from the servers in DEBUGINFOD_URLS (default when it is set)")
	fs.BoolVar(&d.off, "no-debuginfod", false, "never ask debuginfod servers")
}

// client returns the client the flags and the environment ask for (nil:
// none). progress draws its progress line on stderr (a terminal).
func (d *debuginfodFlags) client(stderr io.Writer, progress bool) (*debuginfod.Client, error) {
	if d.on && d.off {
		return nil, fmt.Errorf("%w: --debuginfod and --no-debuginfod together", errUsage)
	}
	cfg := debuginfod.ConfigFromEnv()
	if d.off || len(cfg.URLs) == 0 && !d.on {
		return nil, nil
	}
	if len(cfg.URLs) == 0 {
		return nil, fmt.Errorf("%w: --debuginfod: %s names no server", errUsage, debuginfod.EnvURLs)
	}
	c := debuginfod.New(cfg)
	if progress {
		c.SetProgress(stderr)
	}
	return c, nil
}

// closeDebuginfod prints what went wrong with the client itself (its
// cache) and removes its temporary files.
func closeDebuginfod(c *debuginfod.Client, stderr io.Writer) {
	if c == nil {
		return
	}
	for _, w := range c.Warnings() {
		fmt.Fprintf(stderr, "coreunwind: warning: %s\n", report.Printable(w))
	}
	c.Close()
}

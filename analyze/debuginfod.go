package analyze

import (
	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/elfx/debuginfod"
	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// fetchExecutable is corefile's hook for modules without a local file:
// the executable or library fetched by the build ID the core records.
func fetchExecutable(client *debuginfod.Client) func(string) (string, error) {
	if !client.Enabled() {
		return nil
	}
	return client.Executable
}

// useDebuginfod makes objs fetch the debug files that are not installed,
// and starts the fetches for the core's modules all at once: the objects
// are opened here, in parallel, so that newTarget, opening them one by
// one, finds them ready in the cache.
func useDebuginfod(c *corefile.Core, objs *elfx.Cache, debugDirs []string, opts Options) {
	if !opts.Debuginfod.Enabled() {
		return
	}
	objs.SetDebugFetcher(opts.Debuginfod.Debuginfo, opts.UnwindOnly)
	var g mapfault.Group // the objects are mapped: see analyzeCore
	for _, cm := range c.Modules {
		if cm.File == "" || !hasCode(c, cm) {
			continue
		}
		// Errors are the warnings newTarget reports.
		g.Go(func() { _, _ = objs.Open(cm.File, debugDirs) })
	}
	g.Wait()
}

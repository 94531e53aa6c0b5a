package corefile

import (
	"path/filepath"
	"strings"
)

// settle ends the search for mod's file: when nothing was accepted and
// a sysroot was given, the file at the recorded path is the last resort
// (recordedFallback); then what is still missing is reported.
func (c *Core) settle(mod *Module, look lookResult, fetchErr error, opts Options) {
	look = c.recordedFallback(mod, look, fetchErr, opts)
	c.reportUnresolved(mod, look, fetchErr)
}

// recordedFallback tries the path the core records for mod when the
// sysroot (and the search path, the build-ID directories, debuginfod)
// had no file for it: a sysroot is "looked in first", and a wrong or
// incomplete one must not lose every module this machine has. Only a
// file whose build ID is the core's is taken (tryFiles checks it), never
// an unverifiable one, and a warning says the sysroot did not have it
// (nor debuginfod: fetchErr).
func (c *Core) recordedFallback(mod *Module, look lookResult, fetchErr error, opts Options) lookResult {
	rec := strings.TrimSuffix(mod.Path, deletedSuffix)
	if look.found || look.notELF || opts.Sysroot == "" || mod.BuildID == "" || !filepath.IsAbs(rec) {
		return look
	}
	more := c.tryFiles(mod, []string{rec}, opts)
	if more.found {
		fetched := ""
		if fetchErr != nil {
			fetched = " (" + fetchErr.Error() + ")"
		}
		c.warnf("module %s: not found under sysroot %s%s; using %s (its build ID is the core's)", mod.Path, opts.Sysroot, fetched, rec)
	}
	look.found = more.found
	look.refusals = append(look.refusals, more.refusals...)
	look.looked = append(look.looked, more.looked...)
	return look
}

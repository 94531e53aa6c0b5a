package analyze

import (
	"fmt"
	"strings"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/report"
)

// missingDebugWarnings names, once each and in address order, the
// modules whose frames lost their function names for want of a separate
// debug file, as gdb's "Missing separate debuginfo for ..." does: with
// the build ID to fetch it by and where it was looked for. A module
// whose frames are all named (from .symtab or .dynsym) is not named: the
// warning is for what the report lacks, not a list of every library
// without its debug package.
func missingDebugWarnings(t *target, threads []report.Thread, debuginfodOn bool) []string {
	nameless := map[string]bool{}
	for _, th := range threads {
		for _, f := range th.Frames {
			if f.Function == nil && f.Module != nil && !f.Signal {
				nameless[*f.Module] = true
			}
		}
	}
	var warnings []string
	for _, m := range t.modules {
		if !nameless[m.core.Path] || !m.tried.Load() || m.obj() == nil {
			continue
		}
		if miss := m.obj().MissingDebugFile(); miss != nil {
			warnings = append(warnings, missingDebugWarning(m.core.Path, miss, debuginfodOn))
		}
	}
	return warnings
}

// missingDebugWarning says that the module at path has no debug file,
// what would give it one, and where it was looked for.
func missingDebugWarning(path string, miss *elfx.DebugFileError, debuginfodOn bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Missing separate debuginfo for %s: try to install the debug package", path)
	switch {
	case miss.BuildID == "":
	case debuginfodOn:
		fmt.Fprintf(&b, " (the debuginfod servers have none for build ID %s)", miss.BuildID)
	default:
		fmt.Fprintf(&b, ", or set DEBUGINFOD_URLS (build ID %s)", miss.BuildID)
	}
	b.WriteString("; " + miss.Looked())
	for _, r := range miss.Rejected {
		b.WriteString("; " + r.Error())
	}
	return b.String()
}

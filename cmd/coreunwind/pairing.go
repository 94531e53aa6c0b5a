package main

import (
	"path/filepath"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/report"
)

// A profile of several cores takes several executables, in any order:
// each core is paired with its own. Trying each executable on each core
// would warn about every pair that does not match; instead a core finds
// its executable (and any library given) by the build ID it records, as
// triage's --binaries does; a core that records none for its executable
// (linked with --build-id=none) takes the executable of the same file
// name, or the only one given.

// givenExecutables are the executables named on a pprof command line.
type givenExecutables struct {
	paths []string
	byID  map[string][]string
}

// indexExecutables reads the build ID of each executable (a file that
// has none is paired by name only).
func indexExecutables(paths []string) *givenExecutables {
	g := &givenExecutables{paths: paths, byID: map[string][]string{}}
	for _, p := range paths {
		if id, err := corefile.FileBuildID(p); err == nil && id != "" {
			g.byID[id] = append(g.byID[id], p)
		}
	}
	return g
}

// byBuildID is analyze.Options.FindByBuildID.
func (g *givenExecutables) byBuildID(id string) []string { return g.byID[id] }

// analyze analyzes core with opts (whose FindByBuildID is byBuildID); a
// core whose executable has no build ID and was not found is analyzed
// again with the executable paired by name.
func (g *givenExecutables) analyze(core string, opts analyze.Options) (*report.Report, error) {
	opts.Executable = ""
	rep, err := analyze.Analyze(core, opts)
	if err != nil {
		return nil, err
	}
	if exe := g.byName(rep); exe != "" {
		opts.Executable = exe
		return analyze.Analyze(core, opts)
	}
	return rep, nil
}

// byName returns the executable for a report whose main executable was
// not found and has no build ID to be found by: the one given of the
// same file name, else the only one given; "" when there is none or the
// report needs none.
func (g *givenExecutables) byName(rep *report.Report) string {
	if rep.Core.Executable == nil || len(g.paths) == 0 {
		return ""
	}
	path := *rep.Core.Executable
	missing := false
	for _, m := range rep.Modules {
		if m.Path == path {
			missing = !m.Found && m.BuildID == nil
			break
		}
	}
	if !missing {
		return ""
	}
	for _, p := range g.paths {
		if filepath.Base(p) == filepath.Base(path) {
			return p
		}
	}
	if len(g.paths) == 1 {
		return g.paths[0]
	}
	return ""
}

package main

import (
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/container"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/report"
)

// runPprof is `coreunwind --format pprof CORE... [EXECUTABLE]...`: the
// threads of one or more cores as one profile. Cores and executables are
// told apart by their content (ELF type, through compression), not their
// names or order, and each core is paired with the executable it was
// made by (pairing.go): a core none matches is the only one warned about.
// opts is the report command's template; its Executable is replaced.
func runPprof(pos []string, matches []string, opts analyze.Options, format, out string, stdout, stderr io.Writer) int {
	var cores, exes []string
	var crashes []*container.Crash // from journal files, .crash files, ABRT directories
	for _, p := range pos {
		kind, err := classifyArg(p)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "coreunwind: %v\n", err)
			return exitcode.NoCore
		case kind == argCore && container.Detect(p) != container.KindNone:
			in, err := matchingCrashes(p, matches)
			if err != nil {
				fmt.Fprintf(stderr, "coreunwind: %v\n", err)
				return exitcode.NoCore
			}
			crashes = append(crashes, in...)
		case kind == argCore:
			cores = append(cores, p)
		case kind == argExecutable:
			exes = append(exes, p)
		default:
			fmt.Fprintf(stderr, "coreunwind: %s: a compressed executable: decompress it first\n", p)
			return exitcode.NoCore
		}
	}
	if len(cores) == 0 && len(crashes) == 0 {
		return usageError(stderr, fmt.Errorf("%w: no core file among %q", errUsage, pos))
	}
	given := indexExecutables(exes)
	opts.FindByBuildID = given.byBuildID
	// One cache: a library shared by the cores is opened once.
	objs := elfx.NewCache()
	objs.SetSymbolCache(opts.SymbolCache)
	defer objs.Close()
	opts.Objects = objs
	// Many cores: each is unmapped once analyzed, or their pages would
	// add up in the resident set.
	opts.LeaveMapped = false
	var reps []*report.Report
	code := exitcode.OK
	analyzeOne := func(core string) (*report.Report, error) { return given.analyze(core, opts) }
	for i := range len(cores) + len(crashes) {
		var rep *report.Report
		var err error
		core := ""
		if i < len(cores) {
			core = cores[i]
			rep, err = analyzeOne(core)
		} else {
			c := crashes[i-len(cores)]
			core = c.Name
			rep, err = crashCore(c, analyzeOne)
		}
		if err != nil {
			fmt.Fprintf(stderr, "coreunwind: %v\n", err)
			code = exitcode.Partial
			continue
		}
		for _, w := range rep.Warnings {
			fmt.Fprintf(stderr, "coreunwind: warning: %s: %s\n", report.Printable(core), report.Printable(w))
		}
		if analyze.Incomplete(rep) {
			code = exitcode.Partial
		}
		reps = append(reps, rep)
	}
	if len(reps) == 0 {
		return exitcode.NoCore
	}
	return writeProfile(reps, format, out, stdout, stderr, code)
}

// formatPprofGoroutines is the format of a Go program's goroutine
// profile: one sample per goroutine, as runtime/pprof's "goroutine"
// profile of a live program has them.
const formatPprofGoroutines = "pprof-goroutines"

// isPprof says whether format is one of the pprof profiles.
func isPprof(format string) bool {
	return format == "pprof" || format == formatPprofGoroutines
}

// refuseBinaryToTerminal is the usage error for a gzip-compressed
// profile about to be written to a terminal (--format pprof without -o):
// bytes that garble the screen, and exit 0, help nobody.
func refuseBinaryToTerminal(format, out string, stdout io.Writer) error {
	if !isPprof(format) || out != "" || !isTerminal(stdout) {
		return nil
	}
	return fmt.Errorf("%w: --format pprof writes a compressed profile: give -o FILE or redirect stdout", errUsage)
}

package main

import (
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/report"
)

// runPprof is `coreunwind --format pprof CORE... [EXECUTABLE]...`: the
// threads of one or more cores as one profile. Cores and executables are
// told apart by their content (ELF type, through compression), not their
// names; each executable applies to the cores named before it (back to the
// previous executable), and cores after the last executable use that one.
// opts is the report command's template; its Executable is replaced.
func runPprof(pos []string, opts analyze.Options, out string, stdout, stderr io.Writer) int {
	type job struct{ core, exe string }
	var jobs []job
	pending := 0 // cores not yet given an executable
	lastExe := ""
	for _, p := range pos {
		s, err := corefile.SniffFile(p)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "coreunwind: %v\n", err)
			return exitcode.NoCore
		case s.Kind == corefile.KindCore:
			jobs = append(jobs, job{core: p})
			pending++
		case s.Kind == corefile.KindELF && s.Compression == "":
			for i := len(jobs) - pending; i < len(jobs); i++ {
				jobs[i].exe = p
			}
			pending, lastExe = 0, p
		default:
			fmt.Fprintf(stderr, "coreunwind: %s: neither a core nor an executable\n", p)
			return exitcode.NoCore
		}
	}
	if len(jobs) == 0 {
		return usageError(stderr, fmt.Errorf("%w: no core file among %q", errUsage, pos))
	}
	for i := len(jobs) - pending; i < len(jobs); i++ {
		jobs[i].exe = lastExe
	}
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
	for _, j := range jobs {
		opts.Executable = j.exe
		rep, err := analyze.Analyze(j.core, opts)
		if err != nil {
			fmt.Fprintf(stderr, "coreunwind: %v\n", err)
			code = exitcode.Partial
			continue
		}
		for _, w := range rep.Warnings {
			fmt.Fprintf(stderr, "coreunwind: warning: %s: %s\n", j.core, w)
		}
		if analyze.Incomplete(rep) {
			code = exitcode.Partial
		}
		reps = append(reps, rep)
	}
	if len(reps) == 0 {
		return exitcode.NoCore
	}
	w, closeOut, err := openOutput(out, stdout)
	if err == nil {
		err = report.WritePprof(w, reps)
		if cerr := closeOut(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.Output
	}
	return code
}

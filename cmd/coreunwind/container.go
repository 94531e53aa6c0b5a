package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/container"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/report"
)

// A journal file, an apport .crash file or an ABRT problem directory
// named where a core goes is reported on crash by crash: each core is
// taken out of it (container.Crash.Core), analyzed as a core file, and
// its report carries the container's facts (core.origin). --match
// chooses crashes as coredumpctl's matches do.

// errNoMatch: the container holds no crash that the matches choose.
var errNoMatch = errors.New("no crash matches")

// matchingCrashes lists the crashes of the container at path that match
// every one of matches.
func matchingCrashes(path string, matches []string) ([]*container.Crash, error) {
	all, err := container.List(path)
	if err != nil {
		return nil, err
	}
	var crashes []*container.Crash
	for _, c := range all {
		ok := true
		for _, m := range matches {
			ok = ok && c.Matches(m)
		}
		if ok {
			crashes = append(crashes, c)
		}
	}
	if len(crashes) == 0 {
		if len(matches) > 0 {
			return nil, fmt.Errorf("%s: %w %q (%d crashes in it)", path, errNoMatch, matches, len(all))
		}
		return nil, fmt.Errorf("%s: %w: it holds no crash", path, errNoMatch)
	}
	return crashes, nil
}

// crashCore takes the core of c out of its container and analyzes it;
// the report is named and marked as the crash's.
func crashCore(c *container.Crash, analyzeCore func(core string) (*report.Report, error)) (*report.Report, error) {
	path, remove, err := c.Core("")
	if err != nil {
		return nil, err
	}
	if remove {
		defer os.Remove(path)
	}
	rep, err := analyzeCore(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	rep.Core.Path = c.Name
	origin := c.Origin
	rep.Core.Origin = &origin
	return rep, nil
}

// runContainer writes the reports of the crashes in the container at
// path, one after another (text: a blank line between; JSON: one object
// after another). A crash that cannot be read is said on stderr and
// makes the result partial; none read is exit code 2.
func runContainer(path, exe string, matches []string, opts analyze.Options, format string, text report.TextOptions, out string, stdout, stderr io.Writer) int {
	crashes, err := matchingCrashes(path, matches)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.NoCore
	}
	opts.Executable = exe
	// Several cores: each is unmapped once analyzed.
	opts.LeaveMapped = false
	w, closeOut, err := openOutput(out, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.Output
	}
	written, failed, incomplete := 0, 0, false
	var werr error
	for _, c := range crashes {
		rep, err := crashCore(c, func(core string) (*report.Report, error) { return analyze.Analyze(core, opts) })
		if err != nil {
			fmt.Fprintf(stderr, "coreunwind: %v\n", err)
			failed++
			continue
		}
		if format != "text" || out != "" {
			for _, wn := range rep.Warnings {
				fmt.Fprintf(stderr, "coreunwind: warning: %s: %s\n", report.Printable(c.Name), report.Printable(wn))
			}
		}
		if written > 0 && format != "json" {
			io.WriteString(w, "\n")
		}
		if werr = writeOne(w, rep, format, text); werr != nil {
			break
		}
		written++
		incomplete = incomplete || analyze.Incomplete(rep)
	}
	if err := closeOut(werr); err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.Output
	}
	switch {
	case written == 0:
		return exitcode.NoCore
	case failed > 0 || incomplete:
		return exitcode.Partial
	}
	return exitcode.OK
}

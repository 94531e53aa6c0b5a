// Command coreunwind prints, for every thread of a core dump (or of a
// running process, -p PID), how it got where it was when the process
// died (or was looked at).
//
// Exit codes (also in the README):
//
//	0  the report was written
//	1  usage error (bad flags or arguments)
//	2  the core could not be read at all (missing, not a core, corrupt headers)
//	3  partial result: the report was written, but some thread's unwinding
//	   stopped with an error, or the core is damaged (a "core damaged:"
//	   warning says what is missing)
//	4  the output could not be written
//	6  a file being read (the core, a binary, a library) was truncated or
//	   rewritten during the analysis: run again once the files stay put
//	7  out of memory: the heap in use exceeded the limit (GOMEMLIMIT, else
//	   three quarters of the machine's or the cgroup's memory)
//	8  a live process (-p PID, gcore) could not be attached: gone, a
//	   zombie, already traced, or ptrace not permitted
//	130  SIGINT or SIGTERM during a live process's snapshot: every thread
//	   was let go, nothing written
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/memlimit"
	"github.com/coreunwind/coreunwind/internal/stackreserve"
)

func main() {
	stackreserve.Grow()
	if os.Getenv("GOGC") == "" {
		// A report allocates its indexes once and keeps them to the end:
		// collecting often buys nothing (measured: 15% of a small core's
		// wall time at the default 100).
		debug.SetGCPercent(400)
	}
	memlimit.StartDefault(func(live, limit uint64) {
		fmt.Fprintf(os.Stderr, "coreunwind: out of memory: %.1f MiB in use, over the limit of %.1f MiB (GOMEMLIMIT sets it)\n", float64(live)/(1<<20), float64(limit)/(1<<20))
		os.Exit(exitcode.Memory)
	})
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: tests call it directly.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok {
			return sub(args[1:], stdout, stderr)
		}
		if sub := mistypedSubcommand(args[0]); sub != "" {
			return usageError(stderr, fmt.Errorf("%w: %s: no such file or command; did you mean 'coreunwind %s'?", errUsage, args[0], sub))
		}
	}
	return runReport(args, stdout, stderr)
}

// subcommands are the commands named by the first argument; anything else
// is a report's flag or file. docs/flags.md documents each (a test checks).
var subcommands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"tables": runTables,
	"gcore":  runGcore,
	"triage": runTriage,
	"help": func(_ []string, stdout, _ io.Writer) int {
		printUsage(stdout)
		return exitcode.OK
	},
}

// errUsage marks errors that are the user's invocation, not the input.
var errUsage = errors.New("usage")

func usageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "coreunwind: %v\nRun 'coreunwind --help' for usage.\n", err)
	return exitcode.Usage
}

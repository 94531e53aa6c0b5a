package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/live"
	"github.com/coreunwind/coreunwind/outfile"
	"github.com/coreunwind/coreunwind/report"
)

// liveFlags are the report command's flags for a live process.
type liveFlags struct {
	pid      int
	dump     string
	samples  int
	interval time.Duration
}

// check returns the usage error of a combination that makes no sense.
func (l *liveFlags) check(pos []string, format, threads string) error {
	switch {
	case l.pid < 0:
		return fmt.Errorf("%w: -p %d: want a process id", errUsage, l.pid)
	case l.pid == 0 && (l.dump != "" || l.samples != 0):
		return fmt.Errorf("%w: --dump and --samples need -p PID", errUsage)
	case l.pid == 0:
		return nil
	case threads == "crashed":
		return fmt.Errorf("%w: --threads crashed: a running process has no crashed thread", errUsage)
	case len(pos) > 0:
		return fmt.Errorf("%w: -p PID takes no core or executable (the process's own files are used): %q", errUsage, pos)
	case l.samples < 0:
		return fmt.Errorf("%w: --samples %d: want at least 1", errUsage, l.samples)
	case l.samples > 1 && format != "pprof":
		return fmt.Errorf("%w: --samples %d: several snapshots make one profile: give --format pprof", errUsage, l.samples)
	case l.samples > 1 && l.dump != "":
		return fmt.Errorf("%w: --dump writes one core: not with --samples", errUsage)
	case l.interval < 0:
		return fmt.Errorf("%w: --interval %v: want a positive duration", errUsage, l.interval)
	}
	return nil
}

// interruptible returns a context that SIGINT and SIGTERM end while a
// process is stopped or sampled, and the function that gives the
// signals back their default action: a snapshot is never cut between
// stopping the threads and letting them go.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// liveExit is the exit code and message of a failed snapshot.
func liveExit(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "coreunwind: %v\n", err)
	switch {
	case errors.Is(err, live.ErrAttach):
		return exitcode.Attach
	case errors.Is(err, live.ErrInterrupted):
		return exitcode.Interrupted
	case errors.Is(err, analyze.ErrFileChanged):
		return exitcode.FileChanged
	}
	return exitcode.NoCore
}

// liveOptions adapts the report's options to process pid: JIT names
// from the perf map the process wrote where perf looks for it.
func liveOptions(pid int, opts analyze.Options) analyze.Options {
	if opts.PerfMap == "" {
		p := filepath.Join(os.TempDir(), "perf-"+strconv.Itoa(pid)+".map")
		if _, err := os.Stat(p); err == nil {
			opts.PerfMap = p
		}
	}
	return opts
}

// snapshotReport stops process pid, copies what the report needs, lets
// it go (after writing the whole core to dump, when given, while it is
// stopped), and returns its report.
func snapshotReport(ctx context.Context, pid int, opts analyze.Options, dump string) (*report.Report, error) {
	var lopts live.Options
	var dumpFile *outfile.File
	if dump != "" {
		f, err := outfile.Create(dump)
		if err != nil {
			return nil, err
		}
		dumpFile = f
		lopts.WhileStopped = func(s *live.Snapshot) error { return s.WriteDump(f) }
	}
	snap, err := live.Take(ctx, pid, lopts)
	if dumpFile != nil {
		if cerr := dumpFile.Commit(err); cerr != nil && err == nil {
			err = fmt.Errorf("--dump %s: %w", dump, cerr)
		}
	}
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	c, err := snap.Open(analyze.CoreOptions(opts))
	if err != nil {
		return nil, err
	}
	if !opts.LeaveMapped {
		defer c.Close()
	}
	return analyze.AnalyzeCore(c, opts)
}

// runLive is the report command on a live process: one snapshot's
// report, or with --samples one profile of many.
func runLive(lf liveFlags, opts analyze.Options, format string, text report.TextOptions, out string, stdout, stderr io.Writer) int {
	opts = liveOptions(lf.pid, opts)
	if lf.samples > 1 {
		return runSampling(lf, opts, out, stdout, stderr)
	}
	ctx, stop := interruptible()
	rep, err := snapshotReport(ctx, lf.pid, opts, lf.dump)
	stop()
	if err != nil {
		return liveExit(stderr, err)
	}
	if isPprof(format) {
		return writeProfile([]*report.Report{rep}, format, out, stdout, stderr, exitcode.OK)
	}
	return finishReport(rep, format, text, out, stdout, stderr)
}

// runSampling takes lf.samples snapshots, lf.interval apart (from start
// to start; a slower analysis delays the next), and writes them as one
// profile. SIGINT or SIGTERM ends the sampling early: the samples taken
// are written.
func runSampling(lf liveFlags, opts analyze.Options, out string, stdout, stderr io.Writer) int {
	objs := elfx.NewCache()
	objs.SetSymbolCache(opts.SymbolCache)
	defer objs.Close()
	opts.Objects = objs
	opts.LeaveMapped = false
	ctx, stop := interruptible()
	defer stop()
	var reps []*report.Report
	code := exitcode.OK
	next := time.Now()
	for i := 0; i < lf.samples && ctx.Err() == nil; i++ {
		rep, err := snapshotReport(ctx, lf.pid, opts, "")
		switch {
		case errors.Is(err, live.ErrInterrupted):
		case err != nil && len(reps) == 0:
			return liveExit(stderr, err)
		case err != nil:
			// The process exited or refused a later snapshot: the
			// profile holds the samples taken.
			fmt.Fprintf(stderr, "coreunwind: warning: sample %d: %v\n", i+1, err)
			i = lf.samples
		default:
			if analyze.Incomplete(rep) {
				code = exitcode.Partial
			}
			reps = append(reps, rep)
		}
		next = next.Add(lf.interval)
		select {
		case <-time.After(time.Until(next)):
		case <-ctx.Done():
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "coreunwind: warning: interrupted after %d of %d samples\n", len(reps), lf.samples)
	}
	if len(reps) == 0 {
		return liveExit(stderr, fmt.Errorf("process %d: %w: no sample taken", lf.pid, live.ErrInterrupted))
	}
	if len(reps) > 0 {
		for _, w := range reps[0].Warnings {
			fmt.Fprintf(stderr, "coreunwind: warning: %s\n", report.Printable(w))
		}
	}
	return writeProfile(reps, "pprof", out, stdout, stderr, code)
}

// writeProfile writes reports as one pprof profile (format: pprof, or
// pprof-goroutines for a Go program's goroutine profile); code is the
// exit code when that succeeds.
func writeProfile(reps []*report.Report, format, out string, stdout, stderr io.Writer, code int) int {
	w, closeOut, err := openOutput(out, stdout)
	if err == nil {
		write := report.WritePprof
		if format == formatPprofGoroutines {
			write = report.WritePprofGoroutines
		}
		err = closeOut(write(w, reps))
	}
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.Output
	}
	return code
}

// runGcore is `coreunwind gcore [-o FILE] PID`: the process as a core
// file (core.PID by default, as gdb's gcore names it), written while
// its threads are stopped; they run again once it is written.
func runGcore(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("coreunwind gcore")
	out := fs.String("o", "", "write the core to `FILE` (default core.PID)")
	pos, code, done := parseFlags(fs, args, stdout, stderr)
	if done {
		return code
	}
	if len(pos) != 1 {
		return usageError(stderr, fmt.Errorf("%w: gcore takes one process id", errUsage))
	}
	pid, err := strconv.Atoi(pos[0])
	if err != nil || pid <= 0 {
		return usageError(stderr, fmt.Errorf("%w: gcore %q: want a process id", errUsage, pos[0]))
	}
	path := *out
	if path == "" {
		path = "core." + strconv.Itoa(pid)
	}
	f, err := outfile.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.Output
	}
	ctx, stop := interruptible()
	defer stop()
	snap, err := live.Take(ctx, pid, live.Options{WhileStopped: func(s *live.Snapshot) error { return s.WriteDump(f) }})
	if cerr := f.Commit(err); err == nil && cerr != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", cerr)
		return exitcode.Output
	}
	if err != nil {
		return liveExit(stderr, err)
	}
	defer snap.Close()
	for _, w := range snap.Warnings {
		fmt.Fprintf(stderr, "coreunwind: warning: %s\n", report.Printable(w))
	}
	fmt.Fprintf(stdout, "Saved corefile %s\n", path)
	return exitcode.OK
}

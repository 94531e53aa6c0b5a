package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/cliflag"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/report"
)

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("coreunwind", stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, "Run 'coreunwind --help' for usage.") }
	var (
		format, out, threads, sysroot string
		maxFrames                     int
		searchPath, debugDirs         stringList
		version                       bool
	)
	fs.StringVar(&format, "format", "text", "output format: text, json or pprof")
	fs.StringVar(&out, "o", "", "write the report to `FILE`")
	fs.StringVar(&threads, "threads", "all", "threads to print: all or crashed")
	fs.StringVar(&sysroot, "sysroot", "", "look for the core's files under `DIR`")
	fs.IntVar(&maxFrames, "max-frames", analyze.DefaultMaxFrames, "frames per thread")
	fs.Var(&searchPath, "search-path", "also look for files in `DIR` (repeatable)")
	fs.Var(&debugDirs, "debug-dir", "separate debug files root `DIR` (repeatable)")
	fs.BoolVar(&version, "version", false, "print the version")
	unwindOnly := fs.Bool("unwind-only", false, "frames without names, lines or inlines (modules and offsets only)")
	style := fs.String("style", "gdb", "text style: gdb, or hpux (the HP unwind library's U_STACK_TRACE)")
	maps := fs.Bool("maps", false, "text: print the memory map after the header (JSON always has it)")
	noFold := fs.Bool("no-fold", false, "text: print every frame of a repeated cycle (deep recursion) instead of one line with its count")
	perfMap := fs.String("perf-map", "", "name JIT code from the perf map `FILE` (default: perf-PID.map beside the core)")
	var dflags debuginfodFlags
	dflags.register(fs)
	cacheDir, noCache := symbolCacheFlags(fs)
	pos, err := cliflag.ParseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return exitcode.OK
	}
	if err != nil {
		return exitcode.Usage // flag already printed the problem
	}
	if version {
		fmt.Fprintf(stdout, "coreunwind %s\n", analyze.Version)
		return exitcode.OK
	}
	switch {
	case len(pos) == 0:
		return usageError(stderr, fmt.Errorf("%w: no core file given", errUsage))
	case len(pos) > 2 && format != "pprof":
		return usageError(stderr, fmt.Errorf("%w: too many arguments: %q", errUsage, pos[2:]))
	case format != "text" && format != "json" && format != "pprof":
		return usageError(stderr, fmt.Errorf("%w: --format %q: want text, json or pprof", errUsage, format))
	case threads != "all" && threads != "crashed":
		return usageError(stderr, fmt.Errorf("%w: --threads %q: want all or crashed", errUsage, threads))
	case *style != "gdb" && *style != "hpux":
		return usageError(stderr, fmt.Errorf("%w: --style %q: want gdb or hpux", errUsage, *style))
	case maxFrames < 1:
		return usageError(stderr, fmt.Errorf("%w: --max-frames %d: want at least 1", errUsage, maxFrames))
	}
	client, err := dflags.client(stderr, isTerminal(stderr))
	if err != nil {
		return usageError(stderr, err)
	}
	defer closeDebuginfod(client, stderr)
	opts := analyze.Options{
		Debuginfod:  client,
		Sysroot:     sysroot,
		SearchPath:  searchPath,
		DebugDirs:   debugDirs,
		MaxFrames:   maxFrames,
		CrashedOnly: threads == "crashed",
		UnwindOnly:  *unwindOnly,
		PerfMap:     *perfMap,
		// Only the JSON report lists every frame's registers.
		CrashRegistersOnly: format != "json",
		// The process exits once the report is written.
		LeaveMapped: true,
	}
	if !*noCache && !*unwindOnly {
		opts.SymbolCache = elfx.NewSymbolCache(*cacheDir, 0)
	}
	if format == "pprof" {
		return runPprof(pos, opts, out, stdout, stderr)
	}
	if len(pos) == 2 {
		opts.Executable = pos[1]
	}
	rep, err := analyze.Analyze(pos[0], opts)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		if errors.Is(err, analyze.ErrFileChanged) {
			return exitcode.FileChanged
		}
		return exitcode.NoCore
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "coreunwind: warning: %s\n", w)
	}
	if format == "text" && *style == "hpux" {
		format = "hpux"
	}
	if err := writeReport(rep, format, report.TextOptions{NoFold: *noFold, Maps: *maps}, out, stdout); err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.Output
	}
	if analyze.Incomplete(rep) {
		return exitcode.Partial // the warnings and the threads' errors say why
	}
	return exitcode.OK
}

// writeReport writes to -o FILE when given (the only file coreunwind ever
// writes), else to stdout.
func writeReport(rep *report.Report, format string, text report.TextOptions, out string, stdout io.Writer) error {
	w := stdout
	var f *os.File
	if out != "" {
		var err error
		if f, err = os.Create(out); err != nil {
			return err
		}
		w = f
	}
	var err error
	switch format {
	case "json":
		err = report.WriteJSON(w, rep)
	case "hpux":
		err = report.WriteHPUXOptions(w, rep, text)
	default:
		err = report.WriteTextOptions(w, rep, text)
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

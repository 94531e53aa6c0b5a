package main

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/report/stackwalkjson"
)

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("coreunwind")
	var (
		format, out, threads, sysroot string
		maxFrames                     int
		searchPath, debugDirs         stringList
		symbols                       stringList
		version                       bool
	)
	fs.StringVar(&format, "format", "text", "output format: text, json, stackwalk-json or pprof")
	fs.StringVar(&out, "o", "", "write the report to `FILE`")
	fs.StringVar(&threads, "threads", "all", "threads to print: all or crashed")
	fs.StringVar(&sysroot, "sysroot", "", "look for the core's files under `DIR`")
	fs.IntVar(&maxFrames, "max-frames", analyze.DefaultMaxFrames, "frames per thread")
	fs.Var(&searchPath, "search-path", "also look for files in `DIR` (repeatable)")
	fs.Var(&symbols, "symbols", "Breakpad symbol store `DIR` (NAME/ID/NAME.sym): names, lines and CFI for modules without their binary (repeatable)")
	fs.Var(&debugDirs, "debug-dir", "also look for separate debug files under `DIR` (repeatable; before /usr/lib/debug)")
	noDefaultDebugDirs := fs.Bool("no-default-debug-dirs", false, "do not look for separate debug files under /usr/lib/debug")
	fs.BoolVar(&version, "version", false, "print the version")
	unwindOnly := fs.Bool("unwind-only", false, "frames without names, lines or inlines (modules and offsets only)")
	style := fs.String("style", "gdb", "text style: gdb, or hpux (the HP unwind library's U_STACK_TRACE)")
	maps := fs.Bool("maps", false, "text: print the memory map after the header (JSON always has it)")
	noGroup := fs.Bool("no-group", false, "text: print every thread, not threads with the same stack once under one header")
	noFold := fs.Bool("no-fold", false, "text: print every frame of a repeated cycle (deep recursion) instead of one line with its count")
	perfMap := fs.String("perf-map", "", "name JIT code from the perf map `FILE` (default: perf-PID.map beside the core)")
	var dflags debuginfodFlags
	dflags.register(fs)
	cacheDir, noCache := symbolCacheFlags(fs)
	pos, code, done := parseFlags(fs, args, stdout, stderr)
	if done {
		return code
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
	case format != "text" && format != "json" && format != "stackwalk-json" && format != "pprof":
		return usageError(stderr, fmt.Errorf("%w: --format %q: want text, json, stackwalk-json or pprof", errUsage, format))
	case threads != "all" && threads != "crashed":
		return usageError(stderr, fmt.Errorf("%w: --threads %q: want all or crashed", errUsage, threads))
	case *style != "gdb" && *style != "hpux":
		return usageError(stderr, fmt.Errorf("%w: --style %q: want gdb or hpux", errUsage, *style))
	case maxFrames < 1:
		return usageError(stderr, fmt.Errorf("%w: --max-frames %d: want at least 1", errUsage, maxFrames))
	}
	if err := checkOutput(out, slices.Concat(pos, []string{*perfMap})); err != nil {
		return usageError(stderr, err)
	}
	if err := refuseBinaryToTerminal(format, out, stdout); err != nil {
		return usageError(stderr, err)
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
		Symbols:     symbols,
		// Only the JSON report lists every frame's registers.
		CrashRegistersOnly: format != "json",
		// The process exits once the report is written.
		LeaveMapped: true,
	}
	opts.NoDefaultDebugDirs = *noDefaultDebugDirs // --debug-dir adds to /usr/lib/debug otherwise
	if !*noCache && !*unwindOnly {
		opts.SymbolCache = elfx.NewSymbolCache(*cacheDir, 0)
	}
	if format == "pprof" {
		return runPprof(pos, opts, out, stdout, stderr)
	}
	core, exe, err := coreAndExecutable(pos)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		if errors.Is(err, analyze.ErrFileChanged) {
			return exitcode.FileChanged
		}
		return exitcode.NoCore
	}
	opts.Executable = exe
	rep, err := analyze.Analyze(core, opts)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.NoCore
	}
	if format == "text" && *style == "hpux" {
		format = "hpux"
	}
	// Each warning is said once, where the person running the command
	// reads it: in the text report's "warnings:" block when that report
	// goes to standard output, else on stderr (JSON keeps them in its
	// "warnings" list for programs, but a person sees only stderr; a
	// report written to -o FILE is not in front of them; the hpux style
	// has no warnings block).
	if format != "text" || out != "" {
		for _, w := range rep.Warnings {
			fmt.Fprintf(stderr, "coreunwind: warning: %s\n", report.Printable(w))
		}
	}
	if err := writeReport(rep, format, report.TextOptions{NoFold: *noFold, NoGroup: *noGroup, Maps: *maps}, out, stdout); err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.Output
	}
	if analyze.Incomplete(rep) {
		return exitcode.Partial // the warnings and the threads' errors say why
	}
	return exitcode.OK
}

// writeReport writes to -o FILE when given (the only file coreunwind ever
// writes; see output.go), else to stdout.
func writeReport(rep *report.Report, format string, text report.TextOptions, out string, stdout io.Writer) error {
	w, closeOut, err := openOutput(out, stdout)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		err = report.WriteJSON(w, rep)
	case "stackwalk-json":
		err = stackwalkjson.Write(w, rep)
	case "hpux":
		err = report.WriteHPUXOptions(w, rep, text)
	default:
		err = report.WriteTextOptions(w, rep, text)
	}
	return closeOut(err)
}

package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/container"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/report/stackwalkjson"
)

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("coreunwind")
	var (
		format, out, threads, sysroot  string
		maxFrames                      int
		searchPath, debugDirs, matches stringList
		symbols                        stringList
		version                        bool
	)
	fs.StringVar(&format, "format", "text", "output format: text, json, stackwalk-json, pprof or pprof-goroutines")
	fs.StringVar(&out, "o", "", "write the report to `FILE`")
	fs.StringVar(&threads, "threads", "all", "threads to print: all or crashed")
	fs.StringVar(&sysroot, "sysroot", "", "look for the core's files under `DIR`")
	fs.IntVar(&maxFrames, "max-frames", analyze.DefaultMaxFrames, "frames per thread")
	fs.Var(&searchPath, "search-path", "also look for files in `DIR` (repeatable)")
	fs.Var(&symbols, "symbols", "Breakpad symbol store `DIR` (NAME/ID/NAME.sym): names, lines and CFI for modules without their binary (repeatable)")
	fs.Var(&debugDirs, "debug-dir", "also look for separate debug files under `DIR` (repeatable; before /usr/lib/debug)")
	noDefaultDebugDirs := fs.Bool("no-default-debug-dirs", false, "do not look for separate debug files under /usr/lib/debug")
	fs.BoolVar(&version, "version", false, "print the version")
	fs.Var(&matches, "match", "journal file, .crash file, ABRT directory: report the crashes `MATCH` chooses (PID, executable path, command name, cursor, FIELD=VALUE; repeatable: all must match)")
	unwindOnly := fs.Bool("unwind-only", false, "frames without names, lines or inlines (modules and offsets only)")
	style := fs.String("style", "gdb", "text style: gdb, or hpux (the HP unwind library's U_STACK_TRACE)")
	maps := fs.Bool("maps", false, "text: print the memory map after the header (JSON always has it)")
	noGroup := fs.Bool("no-group", false, "text: print every thread and goroutine, not those with the same stack once under one header")
	pythonOnly := fs.Bool("python-only", false, "text: each thread's Python stack only, as faulthandler prints it")
	noPython := fs.Bool("no-python", false, "leave a CPython process's Python frames out (the evaluator's native frames stay)")
	noFold := fs.Bool("no-fold", false, "text: print every frame of a repeated cycle (deep recursion) instead of one line with its count")
	perfMap := fs.String("perf-map", "", "name JIT code from the perf map `FILE` (default: perf-PID.map beside the core)")
	var lf liveFlags
	fs.IntVar(&lf.pid, "p", 0, "report on the running process `PID` (it is stopped for a snapshot and let go)")
	fs.IntVar(&lf.pid, "pid", 0, "as -p")
	fs.StringVar(&lf.dump, "dump", "", "with -p: also write the process as a core to `FILE`")
	fs.IntVar(&lf.samples, "samples", 0, "with -p and --format pprof: take `N` snapshots into one profile")
	fs.DurationVar(&lf.interval, "interval", 100*time.Millisecond, "with --samples: time between snapshots")
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
	case len(pos) == 0 && lf.pid == 0:
		return usageError(stderr, fmt.Errorf("%w: no core file given", errUsage))
	case len(pos) > 2 && !isPprof(format):
		return usageError(stderr, fmt.Errorf("%w: too many arguments: %q", errUsage, pos[2:]))
	case format != "text" && format != "json" && format != "stackwalk-json" && !isPprof(format):
		return usageError(stderr, fmt.Errorf("%w: --format %q: want text, json, stackwalk-json, pprof or pprof-goroutines", errUsage, format))
	case threads != "all" && threads != "crashed":
		return usageError(stderr, fmt.Errorf("%w: --threads %q: want all or crashed", errUsage, threads))
	case *style != "gdb" && *style != "hpux":
		return usageError(stderr, fmt.Errorf("%w: --style %q: want gdb or hpux", errUsage, *style))
	case *pythonOnly && (format != "text" || *style != "gdb"):
		return usageError(stderr, fmt.Errorf("%w: --python-only is a text style: not with --format %s or --style %s", errUsage, format, *style))
	case *pythonOnly && *noPython:
		return usageError(stderr, fmt.Errorf("%w: --python-only and --no-python exclude each other", errUsage))
	case *pythonOnly && *unwindOnly:
		return usageError(stderr, fmt.Errorf("%w: --python-only needs names: not with --unwind-only", errUsage))
	case maxFrames < 1:
		return usageError(stderr, fmt.Errorf("%w: --max-frames %d: want at least 1", errUsage, maxFrames))
	}
	if err := lf.check(pos, format, threads); err != nil {
		return usageError(stderr, err)
	}
	if err := checkOutput(out, slices.Concat(pos, []string{*perfMap, lf.dump})); err != nil {
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
		NoPython:    *noPython,
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
	if format == "text" && *style == "hpux" {
		format = "hpux"
	}
	if *pythonOnly {
		format = "python"
	}
	textOpts := report.TextOptions{NoFold: *noFold, NoGroup: *noGroup, Maps: *maps}
	if lf.pid != 0 {
		return runLive(lf, opts, format, textOpts, out, stdout, stderr)
	}
	if isPprof(format) {
		return runPprof(pos, matches, opts, format, out, stdout, stderr)
	}
	core, exe, err := coreAndExecutable(pos)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		if errors.Is(err, analyze.ErrFileChanged) {
			return exitcode.FileChanged
		}
		return exitcode.NoCore
	}
	if container.Detect(core) != container.KindNone {
		return runContainer(core, exe, matches, opts, format, textOpts, out, stdout, stderr)
	}
	if len(matches) > 0 {
		return usageError(stderr, fmt.Errorf("%w: --match chooses crashes in a journal file, .crash file or ABRT directory; %s is a core", errUsage, core))
	}
	opts.Executable = exe
	rep, err := analyze.Analyze(core, opts)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.NoCore
	}
	return finishReport(rep, format, textOpts, out, stdout, stderr)
}

// finishReport writes a report and returns the command's exit code.
func finishReport(rep *report.Report, format string, text report.TextOptions, out string, stdout, stderr io.Writer) int {
	// Each warning is said once, where the person running the command
	// reads it: in the text report's "warnings:" block when that report
	// goes to standard output, else on stderr (JSON keeps them in its
	// "warnings" list for programs, but a person sees only stderr; a
	// report written to -o FILE is not in front of them; the hpux style
	// has no warnings block).
	if (format != "text" && format != "python") || out != "" {
		for _, w := range rep.Warnings {
			fmt.Fprintf(stderr, "coreunwind: warning: %s\n", report.Printable(w))
		}
	}
	if err := writeReport(rep, format, text, out, stdout); err != nil {
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
	return closeOut(writeOne(w, rep, format, text))
}

// writeOne writes one report in format: json, hpux, python (the Python
// stacks alone), or text.
func writeOne(w io.Writer, rep *report.Report, format string, text report.TextOptions) error {
	switch format {
	case "json":
		return report.WriteJSON(w, rep)
	case "stackwalk-json":
		return stackwalkjson.Write(w, rep)
	case "hpux":
		return report.WriteHPUXOptions(w, rep, text)
	case "python":
		return report.WritePythonText(w, rep)
	}
	return report.WriteTextOptions(w, rep, text)
}

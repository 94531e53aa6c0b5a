package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/triage"
)

// runTriage is `coreunwind triage PATH...`: many cores grouped into
// buckets by crash signature.
//
// Exit codes: 0 every core was analyzed; 2 no core could be analyzed (none
// found, or all failed); 3 some cores failed or are partial (they are
// listed); 1 usage; 4 output error.
func runTriage(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("coreunwind triage", stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, "Run 'coreunwind --help' for usage.") }
	var (
		format, out, sysroot, skipFile  string
		jobs, frames, maxFrames, listed int
		binaries, searchPath, debugDirs stringList
		skips                           stringList
		allThreads, printSkip           bool
		bucketPartial                   bool
	)
	fs.StringVar(&format, "format", "text", "output format: text, json, jsonl or pprof")
	fs.StringVar(&out, "o", "", "write the output to `FILE`")
	fs.IntVar(&jobs, "j", 0, "cores analyzed at once (default: all CPUs)")
	fs.IntVar(&frames, "frames", triage.DefaultDepth, "meaningful frames per signature")
	fs.Var(&skips, "skip", "also skip frames whose normalized name matches `REGEX` (repeatable; +REGEX: a prefix frame)")
	fs.StringVar(&skipFile, "skip-frames", "", "read the skip list from `FILE` (replaces the default; a line @default includes it)")
	fs.BoolVar(&printSkip, "print-skip", false, "print the skip list in effect and exit")
	fs.Var(&binaries, "binaries", "look for executables and libraries (by build ID) under `DIR` (repeatable)")
	fs.StringVar(&sysroot, "sysroot", "", "look for the cores' files under `DIR`")
	fs.Var(&searchPath, "search-path", "also look for files by name in `DIR` (repeatable)")
	fs.Var(&debugDirs, "debug-dir", "separate debug files root `DIR` (repeatable)")
	fs.BoolVar(&allThreads, "all-threads", false, "unwind every thread (jsonl reports show them), not only the crashing one")
	fs.IntVar(&maxFrames, "max-frames", 256, "frames per thread")
	fs.IntVar(&listed, "max-cores-listed", triage.DefaultMaxListed, "core names listed per bucket in JSON")
	fs.BoolVar(&bucketPartial, "bucket-partial", false, "let partial cores (truncated inside the crashing thread's stack) form and join buckets")
	var dflags debuginfodFlags
	dflags.register(fs)
	cacheDir, noCache := symbolCacheFlags(fs)
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	switch {
	case format != "text" && format != "json" && format != "jsonl" && format != "pprof":
		return usageError(stderr, fmt.Errorf("%w: --format %q: want text, json, jsonl or pprof", errUsage, format))
	case frames < 1:
		return usageError(stderr, fmt.Errorf("%w: --frames %d: want at least 1", errUsage, frames))
	case maxFrames < 1:
		return usageError(stderr, fmt.Errorf("%w: --max-frames %d: want at least 1", errUsage, maxFrames))
	case jobs < 0:
		return usageError(stderr, fmt.Errorf("%w: -j %d: want 0 (all CPUs) or more", errUsage, jobs))
	}
	patterns := triage.DefaultPatterns()
	if skipFile != "" {
		if patterns, err = triage.ReadSkipFile(skipFile); err != nil {
			return usageError(stderr, fmt.Errorf("%w: --skip-frames: %w", errUsage, err))
		}
	}
	skipList, err := triage.NewSkipList(append(append([]string(nil), patterns...), skips...))
	if err != nil {
		return usageError(stderr, fmt.Errorf("%w: %w", errUsage, err))
	}
	if printSkip {
		fmt.Fprintln(stdout, strings.Join(skipList.Patterns(), "\n"))
		return exitOK
	}
	if len(pos) == 0 {
		return usageError(stderr, fmt.Errorf("%w: triage: no directory, archive or core given", errUsage))
	}

	// Progress goes to a terminal only, and not when jsonl lines go to
	// the same terminal; the batch's line says more than downloads do.
	progress := isTerminal(stderr) && !(format == "jsonl" && out == "" && isTerminal(stdout))
	client, err := dflags.client(stderr, false)
	if err != nil {
		return usageError(stderr, err)
	}
	defer closeDebuginfod(client, stderr)
	w, closeOut, err := openOutput(out, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitOutput
	}
	cfg := triage.Config{
		Jobs:       jobs,
		Analyze:    analyze.Options{Sysroot: sysroot, SearchPath: searchPath, DebugDirs: debugDirs, MaxFrames: maxFrames, Debuginfod: client},
		Binaries:   binaries,
		AllThreads: allThreads,
		Signer:     triage.Signer{Skip: skipList, Depth: frames},
	}
	if !*noCache {
		cfg.Analyze.SymbolCache = elfx.NewSymbolCache(*cacheDir, 0)
	}
	var bar *progressLine
	if progress {
		bar = &progressLine{w: stderr, start: time.Now()}
		cfg.Progress = bar.update
	}
	coll := triage.NewCollector(listed)
	coll.BucketPartial = bucketPartial
	var prof *report.ProfileBuilder
	if format == "pprof" {
		prof = report.NewProfileBuilder(report.SampleCrashes)
	}
	var writeErr error
	runErr := triage.Run(pos, cfg, func(r *triage.Result) {
		coll.Add(r)
		if r.Err != nil {
			return
		}
		// A partial core not bucketed has no bucket yet: whether a
		// bucket of whole cores has its signature is known at the end
		// (the JSON and text summaries say).
		bucket := r.Sig.ID
		if r.Partial != "" && !bucketPartial {
			bucket = ""
		}
		switch format {
		case "jsonl":
			if writeErr == nil {
				writeErr = triage.WriteJSONLine(w, r.Report, bucket, r.Partial)
			}
		case "pprof":
			labels := map[string]string{"signature": r.Sig.Text, "core": r.Input.Name}
			if bucket != "" {
				labels["bucket"] = bucket
			}
			if r.Partial != "" {
				labels["partial"] = r.Partial
			}
			prof.Add(r.Report, report.AddOptions{CrashedOnly: true, Labels: labels})
		}
	})
	if bar != nil {
		bar.finish()
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", runErr)
	}
	sum := coll.Summary()
	switch format {
	case "text":
		writeErr = triage.WriteText(w, sum)
	case "json":
		writeErr = triage.WriteJSON(w, sum)
	case "jsonl":
		for _, f := range sum.Failures {
			fmt.Fprintf(stderr, "coreunwind: %s: %s\n", f.Core, f.Error)
		}
		for _, p := range sum.Partial {
			fmt.Fprintf(stderr, "coreunwind: %s: partial: %s\n", p.Core, p.Reason)
		}
	case "pprof":
		writeErr = prof.Write(w)
		for _, f := range sum.Failures {
			fmt.Fprintf(stderr, "coreunwind: %s: %s\n", f.Core, f.Error)
		}
		for _, p := range sum.Partial {
			fmt.Fprintf(stderr, "coreunwind: %s: partial: %s\n", p.Core, p.Reason)
		}
	}
	if err := closeOut(); writeErr == nil {
		writeErr = err
	}
	if writeErr != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", writeErr)
		return exitOutput
	}
	switch {
	case sum.CoresAnalyzed == 0:
		if sum.CoresTotal == 0 {
			fmt.Fprintf(stderr, "coreunwind: triage: no cores found in %s\n", strings.Join(pos, " "))
		}
		return exitNoCore
	case sum.CoresFailed > 0 || sum.CoresPartial > 0 || runErr != nil:
		return exitPartial
	}
	return exitOK
}

// openOutput opens -o FILE, or returns stdout; the closer reports the
// file's close error (a full disk shows up there).
func openOutput(out string, stdout io.Writer) (io.Writer, func() error, error) {
	if out == "" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(out)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// isTerminal is term.IsTerminal (x/term is not a dependency; x/sys is).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// progressLine is a one-line progress display on a terminal, redrawn at
// most ten times a second.
type progressLine struct {
	w     io.Writer
	start time.Time
	last  time.Time
	drawn bool
}

func (p *progressLine) update(done, failed int) {
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	rate := float64(done) / now.Sub(p.start).Seconds()
	fmt.Fprintf(p.w, "\r\033[Ktriage: %d cores, %d failed, %.0f cores/s", done, failed, rate)
	p.drawn = true
}

func (p *progressLine) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

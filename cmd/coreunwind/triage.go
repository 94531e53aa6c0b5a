package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/exitcode"
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
	fs := newFlagSet("coreunwind triage")
	var (
		format, out string
		jobs        int
		opts        triage.Options
		// `triage eval --labels FILE`: score the buckets (triageeval.go);
		// --explain CORE: how one core's signature is made.
		evalMode        bool
		labels, explain string
	)
	if len(args) > 0 && args[0] == "eval" {
		evalMode, args = true, args[1:]
	}
	fs.StringVar(&labels, "labels", "", "triage eval: the labelled corpus, a `FILE` of \"BUG CORE\" lines")
	fs.StringVar(&explain, "explain", "", "print which frames made the signature of `CORE`, and which rules skipped the others")
	fs.StringVar(&format, "format", "text", "output format: text, json, jsonl or pprof")
	fs.StringVar(&out, "o", "", "write the output to `FILE`")
	fs.IntVar(&jobs, "j", 0, "cores analyzed at once (default: all CPUs)")
	tflags := opts.RegisterFlags(fs)
	var dflags debuginfodFlags
	dflags.register(fs)
	cacheDir, noCache := symbolCacheFlags(fs)
	pos, code, done := parseFlags(fs, args, stdout, stderr)
	if done {
		return code
	}
	switch {
	case format != "text" && format != "json" && format != "jsonl" && format != "pprof":
		return usageError(stderr, fmt.Errorf("%w: --format %q: want text, json, jsonl or pprof", errUsage, format))
	case jobs < 0:
		return usageError(stderr, fmt.Errorf("%w: -j %d: want 0 (all CPUs) or more", errUsage, jobs))
	}
	if err := refuseBinaryToTerminal(format, out, stdout); err != nil {
		return usageError(stderr, err)
	}
	if err := tflags.Resolve(); err != nil {
		return usageError(stderr, fmt.Errorf("%w: %w", errUsage, err))
	}
	if tflags.PrintSkip {
		fmt.Fprintln(stdout, strings.Join(opts.SkipPatterns, "\n"))
		return exitcode.OK
	}
	switch {
	case evalMode && labels == "":
		return usageError(stderr, fmt.Errorf("%w: triage eval: --labels FILE is required", errUsage))
	case !evalMode && labels != "":
		return usageError(stderr, fmt.Errorf("%w: --labels: only for triage eval", errUsage))
	case (evalMode || explain != "") && format != "text" && format != "json":
		return usageError(stderr, fmt.Errorf("%w: --format %q: triage eval and --explain write text or json", errUsage, format))
	case explain != "" && evalMode:
		return usageError(stderr, fmt.Errorf("%w: --explain: not with triage eval", errUsage))
	}
	if explain != "" {
		opts.CacheDir, opts.NoCache = *cacheDir, *noCache
		cfg, err := opts.Config()
		if err != nil {
			return usageError(stderr, fmt.Errorf("%w: %w", errUsage, err))
		}
		cfg.Jobs = 1
		w, closeOut, err := openOutput(out, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "coreunwind: %v\n", err)
			return exitcode.Output
		}
		code := runExplain(explain, cfg, format, w, stderr)
		if err := closeOut(nil); err != nil && code == exitcode.OK {
			fmt.Fprintf(stderr, "coreunwind: %v\n", err)
			return exitcode.Output
		}
		return code
	}
	var evaluator *triage.Evaluator
	if evalMode {
		l, err := triage.ReadLabelsFile(labels)
		if err != nil {
			return usageError(stderr, fmt.Errorf("%w: --labels: %w", errUsage, err))
		}
		evaluator = triage.NewEvaluator(l)
	}
	if len(pos) == 0 {
		return usageError(stderr, fmt.Errorf("%w: triage: no directory, archive or core given", errUsage))
	}
	opts.CacheDir, opts.NoCache = *cacheDir, *noCache
	if err := checkOutput(out, slices.Concat(pos, opts.Binaries)); err != nil {
		return usageError(stderr, err)
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
		return exitcode.Output
	}
	cfg, err := opts.Config()
	if err != nil {
		return usageError(stderr, fmt.Errorf("%w: %w", errUsage, err))
	}
	cfg.Jobs = jobs
	// Only jsonl writes the reports whole, registers and all.
	cfg.NoFrameRegisters = format != "jsonl"
	cfg.Analyze.Debuginfod = client
	var bar *progressLine
	if progress {
		bar = &progressLine{w: stderr, start: time.Now()}
		cfg.Progress = bar.update
	}
	coll := opts.NewCollector()
	var prof *report.ProfileBuilder
	if format == "pprof" {
		prof = report.NewProfileBuilder(report.SampleCrashes)
	}
	var writeErr error
	runErr := triage.Run(pos, cfg, func(r *triage.Result) {
		coll.Add(r)
		if evaluator != nil {
			evaluator.Add(r.Record())
			return
		}
		if r.Err != nil {
			return
		}
		// A partial core not bucketed has no bucket yet: whether a
		// bucket of whole cores has its signature is known at the end
		// (the JSON and text summaries say).
		bucket := r.BucketID(opts.BucketPartial)
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
	if evaluator != nil {
		return writeEvaluation(evaluator.Evaluate(), format, w, closeOut, stderr)
	}
	switch format {
	case "text":
		writeErr = triage.WriteTextWidth(w, sum, textWidth(out, stdout))
	case "json":
		writeErr = triage.WriteJSON(w, sum)
	case "jsonl":
		triage.WriteProblems(stderr, sum)
	case "pprof":
		writeErr = prof.Write(w)
		triage.WriteProblems(stderr, sum)
	}
	writeErr = closeOut(writeErr)
	if writeErr != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", writeErr)
		return exitcode.Output
	}
	switch {
	case sum.CoresAnalyzed == 0:
		if sum.CoresTotal == 0 {
			fmt.Fprintf(stderr, "coreunwind: triage: no cores found in %s\n", strings.Join(pos, " "))
		}
		return exitcode.NoCore
	case sum.CoresFailed > 0 || sum.CoresPartial > 0 || runErr != nil:
		return exitcode.Partial
	}
	return exitcode.OK
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

// textWidth is the width the triage table is fitted to: $COLUMNS when
// set (as ps and ls take it), else the terminal's when the table goes to
// one, else 0, no limit: a file or a pipe gets every character, for grep.
func textWidth(out string, stdout io.Writer) int {
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	if f, ok := stdout.(*os.File); ok && out == "" {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return 0
}

// Command coreunwind-beam is `coreunwind triage` as an Apache Beam
// pipeline: the same flags, inputs and outputs, run embedded (Beam's
// prism runner, in this process) or submitted to a Beam job service
// (Flink's, Spark's, a standalone prism) with --runner universal
// --endpoint HOST:PORT. It is a command of its own so that the Beam SDK
// stays out of the coreunwind binary.
//
//	coreunwind-beam [FLAGS] PATH...          (PATH: directory, tar, core, or gs://.../s3://... glob)
//	coreunwind-beam --worker-pool PORT       (a Beam worker pool, for --environment_type EXTERNAL)
//
// Exit codes, as `coreunwind triage`'s (README): 0 every core was
// analyzed; 1 usage; 2 no core could be analyzed; 3 some cores failed or
// are partial; 4 the output could not be written; and 5 the pipeline
// failed (the runner or a worker: nothing or not all was written).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal/extworker"

	// The runners --runner names.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"

	"github.com/coreunwind/coreunwind/beam/triagebeam"
	"github.com/coreunwind/coreunwind/internal/cliflag"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/outfile"
)

func main() {
	if workerMode(os.Args[1:]) {
		// A runner started this binary as an SDK harness (PROCESS or
		// DOCKER environments): Beam's own flags, and Init never returns.
		flag.Parse()
		beam.Init()
		return
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// workerMode: the SDK harness flags a runner starts workers with.
func workerMode(args []string) bool {
	for _, a := range args {
		if a == "--worker" || a == "--worker=true" || a == "-worker" || a == "-worker=true" {
			return true
		}
	}
	return false
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("coreunwind-beam", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		opts       triagebeam.Options
		runner     string
		workerPool int
		verbose    bool
	)
	fs.StringVar(&opts.Format, "format", "text", "output format: text, json or jsonl")
	fs.StringVar(&opts.Out, "o", "", "write the output to `FILE` (a local path or a Beam filesystem URL; with a remote runner, where its workers can write)")
	tflags := opts.Triage.RegisterFlags(fs)
	fs.StringVar(&opts.Triage.CacheDir, "cache-dir", "", "keep each worker's symbol cache in `DIR` (default $XDG_CACHE_HOME/coreunwind or ~/.cache/coreunwind)")
	fs.BoolVar(&opts.Triage.NoCache, "no-cache", false, "neither read nor write the symbol cache")
	fs.StringVar(&runner, "runner", "prism", "Beam runner: prism (embedded, this process) or universal (a job service at --endpoint)")
	fs.StringVar(jobopts.Endpoint, "endpoint", "", "the job service's `HOST:PORT` (--runner universal)")
	fs.StringVar(jobopts.EnvironmentType, "environment_type", "", "where the workers run: LOOPBACK (default: in this process), EXTERNAL (a --worker-pool), PROCESS, DOCKER")
	fs.StringVar(jobopts.EnvironmentConfig, "environment_config", "", "the environment's configuration: EXTERNAL: the worker pool's HOST:PORT")
	fs.StringVar(jobopts.WorkerBinary, "worker_binary", "", "the worker binary a runner stages (PROCESS, DOCKER): this command's own binary")
	fs.StringVar(jobopts.JobName, "job_name", "", "the job's name on the job service")
	fs.IntVar(jobopts.Parallelism, "parallelism", -1, "Flink: the job's parallelism")
	fs.IntVar(&workerPool, "worker-pool", 0, "serve as a Beam worker pool on `PORT` (localhost) for --environment_type EXTERNAL, until killed")
	fs.BoolVar(&verbose, "v", false, "log the runner's progress (Beam's and prism's info messages) on stderr")
	pos, err := cliflag.ParseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitcode.OK
	}
	if err != nil {
		return exitcode.Usage
	}
	// Beam and prism log through slog: warnings and errors only, unless
	// asked, so that stderr says what coreunwind triage's says.
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	beam.Init()
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
	if workerPool > 0 {
		return servePool(workerPool, stderr)
	}
	usage := func(err error) int {
		fmt.Fprintf(stderr, "coreunwind-beam: %v\n", err)
		return exitcode.Usage
	}
	switch {
	case opts.Format != "text" && opts.Format != "json" && opts.Format != "jsonl":
		return usage(fmt.Errorf("--format %q: want text, json or jsonl", opts.Format))
	case runner != "prism" && runner != "universal":
		return usage(fmt.Errorf("--runner %q: want prism or universal", runner))
	case runner == "universal" && *jobopts.Endpoint == "":
		return usage(errors.New("--runner universal: --endpoint HOST:PORT is needed"))
	}
	if err := tflags.Resolve(); err != nil {
		return usage(err)
	}
	if tflags.PrintSkip {
		fmt.Fprintln(stdout, strings.Join(opts.Triage.SkipPatterns, "\n"))
		return exitcode.OK
	}
	if len(pos) == 0 {
		return usage(errors.New("no directory, archive or core given"))
	}
	// -o must not be an input: the pipeline would replace a core it
	// reads with the summary (outfile.CheckNotInput).
	if err := outfile.CheckNotInput(opts.Out, slices.Concat(pos, opts.Triage.Binaries)); err != nil {
		return usage(err)
	}
	if runner == "universal" && *jobopts.EnvironmentType == "" {
		// The workers run in this process: the same command with two
		// more flags needs nothing else on the job service's side.
		*jobopts.EnvironmentType = "LOOPBACK"
	}

	if !strings.EqualFold(*jobopts.EnvironmentType, "LOOPBACK") && *jobopts.WorkerBinary == "" {
		// The universal runner stages a worker binary for the workers it
		// does not run itself; without one it cross-compiles this
		// command from source, which a user's machine may not have.
		// The workers are this very binary (main's worker mode).
		if exe, err := os.Executable(); err == nil {
			*jobopts.WorkerBinary = exe
		}
	}

	p, s := beam.NewPipelineWithRoot()
	triagebeam.Build(s, pos, opts)
	ctx := context.Background()
	var res beam.PipelineResult
	err = removingLoopbackPlaceholders(func() (err error) {
		res, err = beam.Run(ctx, runner, p)
		return err
	})
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind-beam: pipeline failed: %v\n", err)
		if strings.Contains(err.Error(), "output: ") {
			return exitcode.Output
		}
		return exitcode.Pipeline
	}
	n := triagebeam.ReadTotals(res)
	switch {
	case !n.Known:
		fmt.Fprintln(stderr, "coreunwind-beam: the runner returned no counters: exit status unknown")
		return exitcode.Pipeline
	case n.Analyzed == 0:
		if n.Total == 0 {
			fmt.Fprintf(stderr, "coreunwind-beam: no cores found in %s\n", strings.Join(pos, " "))
		}
		return exitcode.NoCore
	case n.Failed > 0 || n.Partial > 0:
		return exitcode.Partial
	}
	return exitcode.OK
}

// servePool runs a worker pool (Beam's external worker service) until
// the process is killed: a runner with --environment_type EXTERNAL
// --environment_config localhost:PORT starts its workers here.
func servePool(port int, stderr io.Writer) int {
	ctx := context.Background()
	pool, err := extworker.StartLoopback(ctx, port)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind-beam: worker pool: %v\n", err)
		return exitcode.Pipeline
	}
	fmt.Fprintf(stderr, "coreunwind-beam: worker pool at %s\n", pool.EnvironmentConfig(ctx))
	select {}
}

package triagebeam

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/coreunwind/coreunwind/triage"
)

// Options are a pipeline's settings: the batch's (the same as
// `coreunwind triage`'s), and its output.
type Options struct {
	Triage triage.Options `json:"triage"`
	// Format is text, json or jsonl (pprof is `coreunwind triage`'s
	// alone: one profile is not built from many workers).
	Format string `json:"format"`
	// Out is where the output goes: a local path, a URL Beam's
	// filesystem package knows (gs://...), or "" for the standard output
	// of the process running the last stage (the launching process with
	// the embedded and loopback runners).
	Out string `json:"out"`
}

// Build adds the triage of paths (local paths, or URLs of objects or
// globs of them) to a pipeline.
func Build(s beam.Scope, paths []string, opts Options) {
	s = s.Scope("triage")
	roots := beam.Create(s, toAny(paths)...)
	files := beam.ParDo(s, &listFn{}, roots)
	// Listing is one element per root; analysis is the work. Reshuffle
	// breaks the fusion so that the runner spreads the files over
	// every worker.
	files = beam.Reshuffle(s, files)
	outcomes := beam.ParDo(s, &analyzeFn{Opts: opts.Triage, JSONL: opts.Format == "jsonl"}, files)
	keyed := beam.ParDo(s, keyBySignature, outcomes)
	perSig := beam.CombinePerKey(s, &bucketFn{MaxListed: opts.Triage.MaxListed, BucketPartial: opts.Triage.BucketPartial, Rules: opts.Triage.RulesDigest()}, keyed)
	// The Go SDK's global combine emits nothing for no input: one empty
	// collector more makes the summary of an empty archive (written,
	// and counted for the exit status, as triage's).
	empty := beam.Create(s, newCollector(opts.Triage.MaxListed, opts.Triage.BucketPartial, opts.Triage.RulesDigest()))
	collectors := beam.Flatten(s, empty, beam.DropKey(s, perSig))
	all := beam.Combine(s, &mergeFn{MaxListed: opts.Triage.MaxListed, BucketPartial: opts.Triage.BucketPartial, Rules: opts.Triage.RulesDigest()}, collectors)
	beam.ParDo0(s, &writeSummaryFn{Format: opts.Format, Out: opts.Out}, all)
	if opts.Format == "jsonl" {
		lines := beam.ParDo(s, reportLine, outcomes)
		beam.ParDo0(s, &writeLinesFn{Out: opts.Out}, beam.GroupByKey(s, beam.AddFixedKey(s, lines)))
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func init() {
	register.DoFn2x1[string, func(File), error](&listFn{})
	register.Emitter1[File]()
	register.DoFn3x1[context.Context, File, func(Outcome), error](&analyzeFn{})
	register.Emitter1[Outcome]()
	register.Function1x2(keyBySignature)
	register.Function2x0(reportLine)
	register.Emitter1[string]()
	register.Combiner3[*triage.Collector, triage.Record, *triage.Collector](&bucketFn{})
	register.Combiner2[*triage.Collector, *triage.Collector](&mergeFn{})
	register.DoFn2x1[context.Context, *triage.Collector, error](&writeSummaryFn{})
	register.DoFn3x1[context.Context, int, func(*string) bool, error](&writeLinesFn{})
	register.Iter1[string]()
}

// listFn lists one root: triage's own walk for a local path, the
// filesystem's List for a URL (a glob: gs://bucket/cores/*).
type listFn struct{}

func (f *listFn) ProcessElement(root string, emit func(File)) error {
	if isURL(root) {
		return listRemote(root, emit)
	}
	return triage.ListFiles([]string{root}, func(l triage.ListedFile) bool {
		e := File{Name: l.Path, Explicit: l.Explicit}
		if l.Err != nil {
			e.Err = l.Err.Error()
		}
		emit(e)
		return true
	})
}

// analyzeFn finds and analyzes the cores of one file, with the worker
// process's Analyzer (acquireAnalyzer): each binary is opened once per
// worker process.
type analyzeFn struct {
	Opts  triage.Options `json:"opts"`
	JSONL bool           `json:"jsonl"`

	an      *triage.Analyzer
	release func()
	pool    *bundlePool
}

// sweepOnce sweeps, once a worker process, what killed workers (or
// commands) left in the temporary directory.
var sweepOnce sync.Once

func (f *analyzeFn) Setup() error {
	sweepOnce.Do(func() { triage.SweepStaleTemp("") })
	var err error
	f.an, f.release, err = acquireAnalyzer(f.Opts)
	return err
}

func (f *analyzeFn) Teardown() {
	if f.release != nil {
		f.release()
		f.release = nil
	}
}

// ProcessElement starts the analysis of one file (bundlePool: the files
// of a bundle are analyzed on every CPU of the worker).
func (f *analyzeFn) ProcessElement(ctx context.Context, file File, emit func(Outcome)) error {
	if f.pool == nil {
		f.pool = newBundlePool(0)
	}
	return f.pool.start(func(emit func(Outcome)) error { return f.analyzeFile(ctx, file, emit) }, emit)
}

// FinishBundle waits for the bundle's analyses and emits the rest of
// their outcomes.
func (f *analyzeFn) FinishBundle(emit func(Outcome)) error {
	if f.pool == nil {
		return nil
	}
	return f.pool.finish(emit)
}

// analyzeFile analyzes the cores of one file. It fails only for what is
// not the input's fault (no temporary directory): a core that cannot be
// read, downloaded or analyzed is a failed Outcome, like a failure of
// `coreunwind triage`.
func (f *analyzeFn) analyzeFile(ctx context.Context, file File, emit func(Outcome)) error {
	if file.Err != "" {
		emit(Outcome{Rec: triage.Record{Core: file.Name, Error: file.Err}})
		return nil
	}
	// Named for the sweep and removed on SIGINT, SIGTERM and SIGHUP, as
	// `coreunwind triage`'s (triage.TempDir).
	tmp, removeTmp, err := triage.TempDir("", "beam")
	if err != nil {
		return fmt.Errorf("triage: %w", err)
	}
	defer removeTmp()
	path := file.Name
	if file.Remote {
		if path, err = download(ctx, file.Name, tmp); err != nil {
			emit(Outcome{Rec: triage.Record{Core: file.Name, Error: err.Error()}})
			return nil
		}
	}
	triage.DiscoverFile(file.Name, path, file.Explicit, tmp, func(in *triage.Input) bool {
		defer in.Close()
		testHook(in.Name)
		r := f.an.Analyze(in)
		o := Outcome{Rec: r.Record()}
		if f.JSONL && r.Err == nil {
			var b bytes.Buffer
			if err := triage.WriteJSONLine(&b, r.Report, r.BucketID(f.Opts.BucketPartial), r.Partial); err != nil {
				o.Rec = triage.Record{Core: in.Name, Time: in.Time, Error: fmt.Sprintf("jsonl: %v", err)}
			} else {
				o.Line = b.String()
			}
		}
		emit(o)
		return true
	})
	return nil
}

// keyBySignature keys a core by its bucket's id ("" for the failures).
func keyBySignature(o Outcome) (string, triage.Record) { return o.Rec.Sig.ID, o.Rec }

func reportLine(o Outcome, emit func(string)) {
	if o.Line != "" {
		emit(o.Line)
	}
}

// bucketFn collects the cores of one signature.
type bucketFn struct {
	MaxListed     int  `json:"max_listed"`
	BucketPartial bool `json:"bucket_partial"`
	// Rules is the digest of the --rules file, for the summary.
	Rules string `json:"rules"`
}

func (f *bucketFn) CreateAccumulator() *triage.Collector {
	return newCollector(f.MaxListed, f.BucketPartial, f.Rules)
}
func (f *bucketFn) AddInput(c *triage.Collector, r triage.Record) *triage.Collector {
	c.AddRecord(r)
	return c
}
func (f *bucketFn) MergeAccumulators(a, b *triage.Collector) *triage.Collector {
	a.Merge(b)
	return a
}
func (f *bucketFn) ExtractOutput(c *triage.Collector) *triage.Collector { return c }

// mergeFn merges the signatures' collectors into the batch's.
type mergeFn struct {
	MaxListed     int  `json:"max_listed"`
	BucketPartial bool `json:"bucket_partial"`
	// Rules is the digest of the --rules file, for the summary.
	Rules string `json:"rules"`
}

func (f *mergeFn) CreateAccumulator() *triage.Collector {
	return newCollector(f.MaxListed, f.BucketPartial, f.Rules)
}
func (f *mergeFn) AddInput(a, b *triage.Collector) *triage.Collector {
	a.Merge(b)
	return a
}
func (f *mergeFn) MergeAccumulators(a, b *triage.Collector) *triage.Collector {
	a.Merge(b)
	return a
}

func newCollector(maxListed int, bucketPartial bool, rules string) *triage.Collector {
	c := triage.NewCollector(maxListed)
	c.BucketPartial = bucketPartial
	c.Rules = rules
	return c
}

// The batch's totals, read back by the launcher for its exit status
// (any runner returns a job's counters; not all run the last stage in
// the launching process).
var (
	coresTotal    = beam.NewCounter("coreunwind", "cores_total")
	coresAnalyzed = beam.NewCounter("coreunwind", "cores_analyzed")
	coresFailed   = beam.NewCounter("coreunwind", "cores_failed")
	coresPartial  = beam.NewCounter("coreunwind", "cores_partial")
	// summaries is 1 once the summary is made (a counter incremented by
	// 0 may not be reported at all).
	summaries = beam.NewCounter("coreunwind", "summaries")
)

// writeSummaryFn writes the batch's summary: the text table or the JSON
// object, or for jsonl the failures and partial cores on stderr.
type writeSummaryFn struct {
	Format string `json:"format"`
	Out    string `json:"out"`
}

func (f *writeSummaryFn) ProcessElement(ctx context.Context, c *triage.Collector) error {
	sum := c.Summary()
	summaries.Inc(ctx, 1)
	coresTotal.Inc(ctx, int64(sum.CoresTotal))
	coresAnalyzed.Inc(ctx, int64(sum.CoresAnalyzed))
	coresFailed.Inc(ctx, int64(sum.CoresFailed))
	coresPartial.Inc(ctx, int64(sum.CoresPartial))
	if f.Format == "jsonl" {
		triage.WriteProblems(os.Stderr, sum)
		if sum.CoresAnalyzed == 0 && f.Out != "" {
			// No line to write: writeLinesFn never runs, and -o is
			// still the (empty) output, as triage's.
			_, finish, err := openOutput(ctx, f.Out)
			if err == nil {
				err = finish(nil)
			}
			if err != nil {
				return fmt.Errorf("output: %w", err)
			}
		}
		return nil
	}
	w, finish, err := openOutput(ctx, f.Out)
	if err != nil {
		return err
	}
	if f.Format == "json" {
		err = triage.WriteJSON(w, sum)
	} else {
		err = triage.WriteText(w, sum)
	}
	if err := finish(err); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

// writeLinesFn writes the jsonl report lines, one a core, in the order
// the runner gives them (as `coreunwind triage` writes them in
// completion order).
type writeLinesFn struct {
	Out string `json:"out"`
}

func (f *writeLinesFn) ProcessElement(ctx context.Context, _ int, lines func(*string) bool) error {
	w, finish, err := openOutput(ctx, f.Out)
	if err != nil {
		return err
	}
	var line string
	for lines(&line) && err == nil {
		_, err = w.Write([]byte(line))
	}
	if err := finish(err); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

// isURL says whether a path names an object through Beam's filesystem
// package (scheme://...) rather than a local file.
func isURL(p string) bool {
	i := strings.Index(p, "://")
	return i > 0 && !strings.ContainsAny(p[:i], "/.")
}

package triage

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/report"
)

// Config says how to run a batch.
type Config struct {
	// Jobs is how many cores are analyzed at once (0: all CPUs).
	Jobs int
	// Analyze is the template for every core: Sysroot, DebugDirs,
	// SearchPath, MaxFrames. Objects is replaced by the batch's cache
	// and SearchPath is extended per core.
	Analyze analyze.Options
	// Binaries are directories searched (recursively) for the cores'
	// executables and libraries; a file is used only when its build ID
	// is the one the core recorded.
	Binaries []string
	// AllThreads unwinds every thread, not only the crashing one.
	AllThreads bool
	// NoFrameRegisters leaves out the registers of the frames past the
	// crashing thread's first two (those the crash analysis reads): for
	// a batch whose output prints no report's registers (the summary,
	// a profile), not for one that writes each report whole (jsonl).
	// The signature does not change; a deep stack's unwinding no longer
	// lists every frame's registers (4% of a warm batch of the deep
	// stacks of the generated C++ program, Python and libstdc++).
	NoFrameRegisters bool
	// Signer computes signatures.
	Signer Signer
	// TempDir receives extracted archive members ("": os.TempDir()).
	TempDir string
	// Progress, when set, is told about each finished core (for a
	// progress line); called from one goroutine.
	Progress func(done, failed int)
}

// Result is one finished input: a report with its signature, or an error.
type Result struct {
	Input  *Input
	Report *report.Report // nil when Err is set
	Sig    Signature
	Err    error
	// Partial says why the report is partial (see partialReason): the
	// core was cut inside the crashing thread's stack. "" for a whole
	// stack.
	Partial string
}

// Run analyzes every core under paths and passes each result to each, in
// completion order, from one goroutine (each needs no locking). Results
// are not kept: memory stays bounded however many cores there are. One
// bad core never stops the batch; Run's error is for the batch itself
// (a directory that cannot be walked). The batch's temporary directory
// (for archive members) is made only if needed: where it cannot be
// made, the cores that need it fail, saying why, and the others are
// analyzed. It is removed at the end, and on SIGINT, SIGTERM or SIGHUP
// (see signals.go); what a killed run left there, the next one removes.
func Run(paths []string, cfg Config, each func(*Result)) error {
	jobs := cfg.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	// What killed runs left (their pid gone) goes before this run adds
	// its own.
	SweepStaleTemp(cfg.TempDir)
	tmp := &runDir{parent: cfg.TempDir}
	defer tmp.removeAll()

	an := NewAnalyzer(cfg)
	defer an.Close()

	// Discovery runs ahead of the workers by at most 2*jobs inputs: an
	// archive is extracted no faster than its cores are analyzed.
	inputs := make(chan *Input, 2*jobs)
	results := make(chan *Result, 2*jobs)
	stop := make(chan struct{})
	var discoverErr error
	go func() {
		defer close(inputs)
		discoverErr = discover(paths, tmp.get, func(in *Input) bool {
			select {
			case inputs <- in:
				return true
			case <-stop:
				return false
			}
		})
	}()
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for in := range inputs {
				results <- an.Analyze(in)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	done, failed := 0, 0
	for r := range results {
		done++
		if r.Err != nil {
			failed++
		}
		each(r)
		r.Input.Close()
		if cfg.Progress != nil {
			cfg.Progress(done, failed)
		}
	}
	close(stop)
	if discoverErr != nil {
		return fmt.Errorf("triage: %w", discoverErr)
	}
	return nil
}

// ErrNoFrames: the core opened, but its crashing thread has no frame to
// make a signature of.
var ErrNoFrames = errors.New("no frames in the crashing thread")

// Analyzer analyzes cores one at a time, any number at once, sharing
// what a batch shares: every binary and debug file is opened, mapped and
// its build ID checked once (elfx.Cache, corefile.FileCache), the
// --binaries directories are indexed once. Run makes one per batch; a
// distributed runner makes one per worker process.
type Analyzer struct {
	cfg    Config
	objs   *elfx.Cache
	files  *corefile.FileCache
	bins   *binaryIndex
	closes []func() error
}

// NewAnalyzer indexes cfg.Binaries and opens the caches cfg does not
// bring (cfg.Analyze.Objects, cfg.Analyze.Files).
func NewAnalyzer(cfg Config) *Analyzer {
	a := &Analyzer{cfg: cfg, objs: cfg.Analyze.Objects, files: cfg.Analyze.Files, bins: indexBinaries(cfg.Binaries)}
	if a.objs == nil {
		a.objs = elfx.NewCache()
		a.objs.SetSymbolCache(cfg.Analyze.SymbolCache)
		a.objs.SetBatch(true)
		a.closes = append(a.closes, a.objs.Close)
	}
	if a.files == nil {
		a.files = corefile.NewFileCache()
		a.closes = append(a.closes, a.files.Close)
	}
	return a
}

// Close releases the caches NewAnalyzer opened.
func (a *Analyzer) Close() {
	for _, c := range a.closes {
		c()
	}
	a.closes = nil
}

// Analyze analyzes one input: its report and signature, or why it has
// none. A panic in the analysis is the input's error, not the caller's.
// Safe for concurrent use.
func (a *Analyzer) Analyze(in *Input) (res *Result) {
	cfg, objs, files, bins := a.cfg, a.objs, a.files, a.bins
	res = &Result{Input: in}
	defer func() {
		// A bug in one core's analysis must not take the batch down.
		if p := recover(); p != nil {
			res.Report, res.Err = nil, fmt.Errorf("%s: internal error: %v", in.Name, p)
		}
	}()
	if in.Err != nil {
		res.Err = in.Err
		return res
	}
	opts := cfg.Analyze
	opts.Objects = objs
	opts.CrashedOnly = !cfg.AllThreads
	opts.CrashRegistersOnly = opts.CrashRegistersOnly || cfg.NoFrameRegisters
	opts.Files = files
	opts.FindByBuildID = bins.lookup
	if opts.TempDir == "" {
		opts.TempDir = cfg.TempDir
	}
	opts.SearchPath = append(append(append([]string(nil), opts.SearchPath...), bins.dirs...), in.SearchDirs...)
	rep, err := analyze.Analyze(in.Path, opts)
	if err != nil {
		res.Err = err
		return res
	}
	rep.Core.Path = in.Name
	rep.Core.Origin = in.Origin
	th := crashedThread(rep)
	if th == nil || len(th.Frames) == 0 {
		why := ErrNoFrames
		if th != nil && th.Error != nil {
			res.Err = fmt.Errorf("%w: %s", why, *th.Error)
		} else if len(rep.Warnings) > 0 {
			res.Err = fmt.Errorf("%w: %s", why, rep.Warnings[0])
		} else {
			res.Err = why
		}
		return res
	}
	res.Report = rep
	res.Sig = cfg.Signer.Sign(rep)
	if th.Error != nil && !hasNamedFrame(th) {
		// Nothing in the stack is known (a core cut before its notes
		// or memory): a bucket "?" would group unrelated crashes.
		res.Report, res.Sig = nil, Signature{}
		res.Err = fmt.Errorf("%w: no frame has a module or name: %s", ErrNoFrames, *th.Error)
		return res
	}
	res.Partial = partialReason(th)
	return res
}

// binaryIndex is what --binaries offers: every ELF file under the roots
// by its build ID (found whatever its name or layout, .build-id/xx/...
// included), and the directories holding them, searched by file name for
// modules whose build ID the core does not record.
type binaryIndex struct {
	dirs []string
	byID map[string][]string
}

func (b *binaryIndex) lookup(id string) []string { return b.byID[id] }

func indexBinaries(roots []string) *binaryIndex {
	b := &binaryIndex{byID: map[string][]string{}}
	seen := map[string]bool{}
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			s, err := corefile.SniffFile(p)
			if err != nil || s.Kind != corefile.KindELF || s.Compression != "" {
				return nil
			}
			if id, err := corefile.FileBuildID(p); err == nil && id != "" {
				b.byID[id] = append(b.byID[id], p)
			}
			if dir := filepath.Dir(p); !seen[dir] {
				seen[dir] = true
				b.dirs = append(b.dirs, dir)
			}
			return nil
		})
	}
	return b
}

// hasNamedFrame reports whether any frame of t is in a known module or
// has a function name.
func hasNamedFrame(t *report.Thread) bool {
	for _, f := range t.Frames {
		if f.Module != nil || f.Function != nil {
			return true
		}
	}
	return false
}

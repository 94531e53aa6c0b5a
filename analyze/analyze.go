package analyze

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/elfx/debuginfod"
	"github.com/coreunwind/coreunwind/internal/mapfault"
	"github.com/coreunwind/coreunwind/internal/stackreserve"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// Version is coreunwind's version, written into every report.
const Version = "0.1.0"

// Options say where to find what the core refers to and how far to go.
type Options struct {
	Executable string   // the executable named on the command line
	Sysroot    string   // root for the core's recorded paths
	SearchPath []string // extra directories searched by file name
	// DebugDirs are separate debug file roots searched before
	// elfx.DefaultDebugDirs (/usr/lib/debug); NoDefaultDebugDirs leaves
	// the defaults out.
	DebugDirs          []string
	NoDefaultDebugDirs bool
	MaxFrames          int // per thread; 0: DefaultMaxFrames
	// CrashedOnly limits the report to the crashing thread.
	CrashedOnly bool
	// UnwindOnly leaves out names, lines and inlined calls: frames carry
	// their module and offset only, and no symbol table or DWARF is read.
	UnwindOnly bool
	// CrashRegistersOnly lists registers for the crashing thread's
	// first two frames only (what the crash analysis reads: the crashing
	// frame, and its caller's, with which it decodes the call that went
	// to a bad pc, e.g. arm's cpsr for Thumb code), not for every
	// frame of every thread: for writers that print no frame's registers
	// (text, pprof), which would otherwise pay for lists nobody reads.
	CrashRegistersOnly bool
	// Objects shares opened binaries between cores of a batch; nil opens
	// a cache for this core only.
	Objects *elfx.Cache
	// SymbolCache keeps symbol and source lookups on disk for the next
	// run (nil: it does not), in the cache opened for this core when
	// Objects is nil. A batch sets it on its Objects.
	SymbolCache *elfx.SymbolCache
	// Files shares the files that fill the cores' memory (nil: each core
	// maps its own); FindByBuildID names files by build ID (a batch's
	// --binaries). See corefile.Options.
	Files         *corefile.FileCache
	FindByBuildID func(buildID string) []string
	// TempDir receives decompressed copies of compressed cores.
	TempDir string
	// CachePolicy for unwind rules (CacheGlobal by default).
	CachePolicy unwind.CachePolicy
	// PerfMap is a perf-PID.map naming JIT code; "" looks for one beside
	// the core.
	PerfMap string
	// Symbols are Breakpad symbol stores (DIR/NAME/ID/NAME.sym): names
	// and lines for the modules whose binary is not found.
	Symbols []string
	// Debuginfod, when enabled, fetches by build ID the executables and
	// libraries that no local file matches and the debug files that are
	// not installed. One client serves a whole batch: each file is
	// fetched once.
	Debuginfod *debuginfod.Client
	// LeaveMapped leaves the core's and the objects' mappings to the
	// process's exit (the symbol cache is still written), as clang's
	// -disable-free leaves its memory: for a command that exits right
	// after the report. Unmapping them one by one costs a TLB shootdown
	// on every CPU the process's threads ran on, about a fifth of a small
	// core's --unwind-only run.
	LeaveMapped bool
	// NoPython leaves a CPython process's Python frames out: the
	// evaluator's native frames stay as they are.
	NoPython bool
}

// DefaultMaxFrames is the frame limit per thread when Options.MaxFrames
// is 0: a safety bound (over a million frames), not a cut; real stacks,
// stack overflows included, are walked whole.
const DefaultMaxFrames = unwind.DefaultMaxFrames

// ErrNotCore is returned (wrapped) when the input cannot be read as a
// core at all.
var ErrNotCore = errors.New("cannot read core")

// Analyze reads the core at path and returns its report. An error means
// there is no report at all; a partial result is a report whose threads
// or warnings say what is missing.
func Analyze(path string, opts Options) (*report.Report, error) {
	c, err := corefile.Open(path, CoreOptions(opts))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCore, err)
	}
	if !opts.LeaveMapped {
		defer c.Close()
	}
	return AnalyzeCore(c, opts)
}

// CoreOptions are the options corefile opens a core with for an
// analysis with opts: the files it is given, where to look for the rest,
// and debuginfod. A core opened otherwise (a live process's snapshot)
// starts from them too.
func CoreOptions(opts Options) corefile.Options {
	return corefile.Options{
		Executable: opts.Executable, Sysroot: opts.Sysroot, SearchPath: opts.SearchPath,
		TempDir: opts.TempDir, Files: opts.Files, FindByBuildID: opts.FindByBuildID,
		FetchByBuildID: fetchExecutable(opts.Debuginfod),
	}
}

// ErrFileChanged is wrapped by the error of an analysis that read a
// mapped file (the core, a binary, a library, a debug file) truncated or
// rewritten while it was in use: there is no report, and another run,
// once the files are stable, may give one.
var ErrFileChanged = corefile.ErrFileChanged

// AnalyzeCore builds the report of an opened core.
func AnalyzeCore(c *corefile.Core, opts Options) (r *report.Report, err error) {
	if fault := mapfault.Catch(func() { r, err = analyzeCore(c, opts) }); fault != nil {
		return nil, fmt.Errorf("analyzing %s: %w", c.Path, fault)
	}
	return r, err
}

// analyzeCore is AnalyzeCore without the guard: the objects and files are
// mapped, and a read of one truncated since faults (mapfault.Catch).
// Every goroutine it starts is a mapfault.Group's, so that a fault in one
// reaches the guard.
func analyzeCore(c *corefile.Core, opts Options) (*report.Report, error) {
	// The report opens the modules its frames are in (and those the
	// crash analysis and JIT lookups ask for), not every library the
	// process mapped.
	s := newSession(c, opts, true)
	if s.own && opts.LeaveMapped {
		defer s.objs.FlushSymbolCache()
	} else if s.own {
		defer s.objs.Close()
	}
	t, arch, cache := s.target, s.arch, s.cache
	r := &report.Report{
		Schema:   report.Schema,
		Tool:     report.Tool{Name: "coreunwind", Version: Version},
		Core:     coreInfo(c),
		Warnings: s.Warnings,
	}
	if arch == nil {
		_, err := unwind.LookupArch(c.Arch)
		r.Warnings = append(r.Warnings, fmt.Sprintf("cannot unwind: %v", err))
	}
	threads := orderThreads(c, opts.CrashedOnly)
	r.Threads = make([]report.Thread, len(threads))
	walks := make([][]rawFrame, len(threads))
	// Unwinding needs only CFI; names, lines and inlines need the symbol
	// tables and DWARF of the modules the frames are in. Walk first, then
	// index exactly those modules in parallel, then symbolize.
	parallel(len(threads), func(i int) {
		r.Threads[i], walks[i] = walkThread(t, arch, cache, threads[i], c, opts)
	})
	// A Go program's goroutines: not in an unwind-only report (they
	// need the DWARF); in one of the crashed thread only, the crashed
	// goroutine alone (triage signs a panic by it).
	var goProg *goProgram
	var goWalks []goWalk
	var pyProg *pyProgram
	if !opts.UnwindOnly && !opts.NoPython {
		// A CPython process's Python frames: they replace the
		// evaluator's frames once those are named.
		var warnings []string
		pyProg, warnings = pythonProgram(t, arch, threads)
		r.Warnings = append(r.Warnings, warnings...)
	}
	if !opts.UnwindOnly {
		var warnings []string
		goProg, warnings = goroutineWalks(t, arch, cache, r.Threads, walks, opts)
		r.Warnings = append(r.Warnings, warnings...)
		if goProg != nil {
			goWalks = goProg.walks
		}
	}
	if !opts.UnwindOnly {
		// The stacks are read: their pages need not stay resident
		// while the modules' DWARF is inflated (65 threads map 4 MB).
		// Not in a batch (triage), whose cores are closed one after
		// another: there it would be a system call more a core.
		if s.own {
			c.ReleasePages()
		}
		// One batch for every frame a report names, and for the
		// goroutines' creators: a batch per goroutine made each after
		// the first build the module's whole symbol table, and the
		// creators' lookups one after another did (a tenth of a Go
		// core's report).
		warm := append(make([][]rawFrame, 0, len(walks)+len(goWalks)+1), walks...)
		var creators []rawFrame
		for _, w := range goWalks {
			warm = append(warm, w.frames)
			if w.gopc != 0 {
				creators = append(creators, rawFrame{lookup: w.gopc - 1})
			}
		}
		warmModules(t, append(warm, creators))
	}
	sym := newSymbolizer(t, !opts.UnwindOnly)
	parallel(len(threads), func(i int) {
		// One report frame per walked frame, more with inlined calls:
		// sized once, as a deep stack's frames would otherwise be copied
		// at every doubling; the walk is dropped once named.
		r.Threads[i].Frames = make([]report.Frame, 0, len(walks[i]))
		th := newThreadNamer(len(walks[i]))
		for j := range walks[i] {
			if j > 0 {
				r.Threads[i].Frames = sym.tailCallFrames(r.Threads[i].Frames, &walks[i][j-1], &walks[i][j], th)
			}
			r.Threads[i].Frames = sym.frames(r.Threads[i].Frames, &walks[i][j], th)
		}
		walks[i] = nil
	})
	if goWalks != nil {
		r.Goroutines = make([]report.Goroutine, len(goWalks))
		parallel(len(goWalks), func(i int) {
			g := goWalks[i].g
			g.Frames = make([]report.Frame, 0, len(goWalks[i].frames))
			th := newThreadNamer(len(goWalks[i].frames))
			for _, f := range goWalks[i].frames {
				g.Frames = sym.frames(g.Frames, &f, th)
			}
			g.CreatedBy = sym.creator(th, g.ID, goWalks[i].gopc, goWalks[i].parent)
			r.Goroutines[i] = g
		})
	}
	r.Warnings = append(r.Warnings, t.jitWarnings()...)
	if !opts.UnwindOnly {
		r.Warnings = append(r.Warnings, missingDebugWarnings(t, r.Threads, opts.Debuginfod.Enabled())...)
	}
	r.Mappings = memoryMap(c)
	r.Crash = crashAnalysis(s, r)
	goCrashLine(goProg, t, r)
	if d := goProg.panicDetail(); d != "" && r.Crash != nil {
		r.Crash.Details = append(r.Crash.Details, d)
	}
	// After the crash analysis, which reads the native frames.
	r.Warnings = append(r.Warnings, splicePython(r, pyProg)...)
	// Last: by now every module the walk, the names and the crash
	// analysis asked for is open.
	r.Modules = moduleInfo(t)
	r.Warnings = append(r.Warnings, t.moduleWarnings()...)
	r.Warnings = append(r.Warnings, t.symbolFileWarnings()...)
	return r, nil
}

// orderThreads puts the crashed thread first, the others in core order.
func orderThreads(c *corefile.Core, crashedOnly bool) []*corefile.Thread {
	var out []*corefile.Thread
	for _, th := range c.Threads {
		if th.TID == c.CrashedTID {
			out = append(out, th)
		}
	}
	if crashedOnly {
		return out
	}
	for _, th := range c.Threads {
		if th.TID != c.CrashedTID {
			out = append(out, th)
		}
	}
	return out
}

// parallel runs f(0..n-1) on all CPUs: threads unwind independently, and
// the rule cache and objects are safe to share.
func parallel(n int, f func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	// Workers take the next index themselves: a worker that faults
	// (mapfault.Group) stops, and nobody must wait to hand it work.
	var g mapfault.Group
	var next atomic.Int64
	for w := 0; w < workers; w++ {
		g.Go(func() {
			stackreserve.Grow()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	g.Wait()
}

// rawFrame is what the walk learns of one frame, before symbolization.
type rawFrame struct {
	pc, lookup uint64
	sp, cfa    uint64
	hasSP      bool
	hasCFA     bool
	trust      unwind.Trust
	signal     bool
	exactPC    bool
	regs       []report.Register
}

// walkThread unwinds one thread: its report (without frames) and its
// raw frames.
func walkThread(t *target, arch unwind.Arch, cache *unwind.Cache, th *corefile.Thread, c *corefile.Core, opts Options) (report.Thread, []rawFrame) {
	rt := report.Thread{TID: th.TID, Crashed: th.TID == c.CrashedTID && crashed(c)}
	switch {
	case th.Name != "":
		rt.Name = report.Ptr(th.Name)
	case th.TID == c.PID && c.Comm != "":
		rt.Name = report.Ptr(c.Comm)
	}
	fail := func(err error) (report.Thread, []rawFrame) {
		rt.Err = fmt.Errorf("thread %d: %w", th.TID, err)
		rt.Error = report.Ptr(rt.Err.Error())
		return rt, nil
	}
	if arch == nil {
		return fail(unwind.ErrNoArch)
	}
	initial, err := initialFrame(t, arch, th)
	if err != nil {
		return fail(err)
	}
	cur, err := unwind.NewCursor(t, arch, initial, unwind.Options{Cache: cache, MaxFrames: opts.MaxFrames, Classify: t.classifyFrame})
	if err != nil {
		return fail(err)
	}
	regFrames := MaxRegisterFrames
	if opts.CrashRegistersOnly {
		regFrames = 0
		if rt.Crashed {
			regFrames = 2
		}
	}
	frames, truncated, err := walkFrames(t, cur, arch, regFrames)
	rt.Truncated = truncated
	if err != nil {
		rt.Error, rt.Err = report.Ptr(err.Error()), err
	}
	return rt, frames
}

// walkFrames walks cur to the end of its stack: the raw frames, the
// first regFrames with their registers; truncated at the frame limit or
// at a module without its file (then err says which, a
// *MissingModuleError); err when the walk stopped early.
func walkFrames(t *target, cur *unwind.Cursor, arch unwind.Arch, regFrames int) (frames []rawFrame, truncated bool, err error) {
	var regs regSlab
	for {
		f := cur.Frame()
		rf := rawFrame{pc: cur.PC(), lookup: cur.LookupPC(), cfa: f.CFA, hasCFA: f.HasCFA, trust: f.Trust, signal: cur.IsSignalFrame(), exactPC: f.ExactPC}
		rf.sp, rf.hasSP = f.Get(arch.SPReg())
		if len(frames) < regFrames {
			rf.regs = regs.frameRegisters(arch, f)
		}
		if rf.signal {
			// The trampoline's PC is where the handler returns to: its
			// first instruction. pc-1 would name whatever precedes it
			// (glibc pads __restore_rt with a nop only its FDE covers).
			rf.lookup = rf.pc
		}
		frames = append(frames, rf)
		more, err := cur.Step()
		fromLR := more && len(frames) == 1 && cur.Frame().Locs[arch.PCReg()].Kind == unwind.LocReg
		if cut := t.missingModule(rf.pc, rf.lookup, fromLR); cut != nil && (!more || guessed(cur.Frame().Trust)) {
			// The caller, if any, is a guess past a module without
			// its file: stop, say which file would let the walk go on.
			shiftCFA(frames)
			return frames, true, cut
		}
		if more {
			continue
		}
		shiftCFA(frames)
		if errors.Is(err, unwind.ErrMaxFrames) {
			return frames, true, nil
		}
		return frames, false, err
	}
}

// shiftCFA gives every frame its own CFA. A step computes the CFA of the
// frame it unwinds (the caller's stack pointer at the call) and the
// cursor keeps it with the caller it found; the report's cfa is the
// frame's own, so frame i takes what the step from it computed, and the
// outermost frame, never stepped from, has none.
func shiftCFA(frames []rawFrame) {
	for i := range frames {
		if i+1 < len(frames) {
			frames[i].cfa, frames[i].hasCFA = frames[i+1].cfa, frames[i+1].hasCFA
		} else {
			frames[i].cfa, frames[i].hasCFA = 0, false
		}
	}
}

// warmModules indexes, in parallel, the objects that frames landed in,
// unless the symbol cache already knows every lookup address in them.
func warmModules(t *target, walks [][]rawFrame) {
	addrs := map[*module][]uint64{}
	for _, w := range walks {
		for _, f := range w {
			if m := t.module(f.lookup); m.obj() != nil {
				addrs[m] = append(addrs[m], f.lookup-m.bias)
			}
		}
	}
	var g mapfault.Group
	for m, a := range addrs {
		g.Go(func() { m.obj().WarmFor(a) })
	}
	g.Wait()
}

// MaxRegisterFrames bounds the frames per thread whose registers the
// report lists: a million-frame recursion would otherwise hold tens of
// registers per frame (gigabytes); past it, frames repeat what was shown.
const MaxRegisterFrames = 4096

// initialFrame builds frame 0 of a thread from what the core saved.
func initialFrame(t *target, arch unwind.Arch, th *corefile.Thread) (*unwind.Frame, error) {
	return arch.FrameFromThread(&unwind.ThreadState{GRegs: th.GRegs, FPRegs: th.FPRegs, Notes: th.Notes, Order: t.ByteOrder(), Mem: t})
}

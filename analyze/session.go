package analyze

import (
	"fmt"
	"slices"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/mapfault"
	"github.com/coreunwind/coreunwind/unwind"
)

// Session is an opened core for programs that walk stacks themselves,
// libunwind style: an unwind.AddrSpace over the core and its files, and
// an unwind.Cursor per thread. Analyze is the same machinery writing a
// whole report.
type Session struct {
	Core   *corefile.Core
	target *target
	arch   unwind.Arch
	cache  *unwind.Cache
	objs   *elfx.Cache
	own    bool // objs was opened for this session

	// Warnings say what could not be found (files, debug files).
	Warnings []string
}

// Open opens the core at path as Analyze does.
func Open(path string, opts Options) (*Session, error) {
	c, err := corefile.Open(path, corefile.Options{
		Executable: opts.Executable, Sysroot: opts.Sysroot, SearchPath: opts.SearchPath,
		TempDir: opts.TempDir, Files: opts.Files, FindByBuildID: opts.FindByBuildID,
		FetchByBuildID: fetchExecutable(opts.Debuginfod),
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCore, err)
	}
	var s *Session
	if fault := mapfault.Catch(func() { s = newSession(c, opts, false) }); fault != nil {
		c.Close()
		return nil, fmt.Errorf("opening %s: %w", path, fault)
	}
	if s.arch == nil {
		_, err := unwind.LookupArch(c.Arch)
		s.Close()
		return nil, err
	}
	return s, nil
}

// newSession builds the address space of an opened core: its modules'
// objects (opened through opts.Objects, or a cache of its own), the
// arch, the rule cache. arch is nil when no unwinder knows the machine.
// With lazyModules the objects are opened on first use, and
// target.moduleWarnings says later which failed.
func newSession(c *corefile.Core, opts Options, lazyModules bool) *Session {
	s := &Session{Core: c, objs: opts.Objects, cache: unwind.NewCache(opts.CachePolicy)}
	if s.objs == nil {
		s.objs, s.own = elfx.NewCache(), true
		s.objs.SetSymbolCache(opts.SymbolCache)
		s.objs.SetUnwindOnly(opts.UnwindOnly)
	}
	debugDirs := searchedDebugDirs(opts)
	useDebuginfod(c, s.objs, debugDirs, opts)
	var warnings []string
	s.target, warnings = newTarget(c, s.objs, debugDirs, lazyModules)
	s.target.jitState.perfMapPath = opts.PerfMap
	s.target.symFiles.store = opts.Symbols
	s.Warnings = append(append([]string(nil), c.Warnings...), warnings...)
	if arch, err := unwind.LookupArch(c.Arch); err == nil {
		s.arch = arch
		if ta, ok := arch.(unwind.TableArch); ok {
			s.target.tables = ta
		}
	}
	return s
}

// AddrSpace is the core as the unwinder reads it: memory from the core
// and the mapped files, unwind info and names from the objects. A read
// of a file truncated or rewritten since it was mapped returns an error
// wrapping ErrFileChanged (sessionSpace).
func (s *Session) AddrSpace() unwind.AddrSpace { return sessionSpace{s.target} }

// Arch is the unwinder for the core's machine.
func (s *Session) Arch() unwind.Arch { return s.arch }

// Cursor starts a cursor at thread tid's registers as the core saved
// them. maxFrames 0 means DefaultMaxFrames. The core and its objects are
// mapped: a read of one truncated or rewritten since (a library upgraded
// under a long-lived session) returns an error wrapping ErrFileChanged,
// here and from the cursor's Step, ProcInfo and ProcName, instead of a
// SIGBUS that would end the program.
func (s *Session) Cursor(tid, maxFrames int) (cur *unwind.Cursor, err error) {
	th := s.Core.Thread(tid)
	if th == nil {
		return nil, fmt.Errorf("no thread %d in the core", tid)
	}
	var init *unwind.Frame
	if fault := mapfault.Catch(func() { init, err = initialFrame(s.target, s.arch, th) }); fault != nil {
		return nil, fmt.Errorf("thread %d: %w", tid, fault)
	}
	if err != nil {
		return nil, fmt.Errorf("thread %d: %w", tid, err)
	}
	return unwind.NewCursor(s.target, s.arch, init, unwind.Options{Cache: s.cache, MaxFrames: maxFrames, Classify: s.target.classifyFrame, CatchFaults: true})
}

// FlushCache drops cached unwind rules for [lo, hi) (0, 0: all).
func (s *Session) FlushCache(lo, hi uint64) { s.cache.FlushCache(lo, hi) }

// Close releases the core and the objects the session opened.
func (s *Session) Close() error {
	if s.own {
		s.objs.Close()
	}
	return s.Core.Close()
}

// searchedDebugDirs is where separate debug files are looked for: the
// directories given, then the defaults unless left out; never nil (an
// empty list searches only beside the binaries).
func searchedDebugDirs(opts Options) []string {
	dirs := slices.Clone(opts.DebugDirs)
	if dirs == nil {
		dirs = []string{}
	}
	if !opts.NoDefaultDebugDirs {
		for _, d := range elfx.DefaultDebugDirs {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

package triage

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// DefaultSkip lists the frames that say nothing about which bug crashed:
// the machinery between the faulting code and the signal (trampolines,
// raise/abort/assert, the allocator's own checks, the C++, Rust and Go
// panic paths). Each line is a regular expression matched against the
// whole normalized function name (see NormalizeFunction). A signature is
// made of the frames left after skipping these.
//
// Allocator entry points (malloc, free, ...) are in the list too: a crash
// inside them is heap corruption detected there, and the bug is at (or
// before) the caller.
var DefaultSkip = []string{
	// Signal delivery (__restore and __kernel_sigreturn: i386's trampolines
	// without SA_SIGINFO).
	`__restore_rt`, `__kernel_rt_sigreturn`, `_sigtramp`, `__restore`, `__kernel_sigreturn`,
	// i386: every system call enters the kernel through the vDSO, so a
	// thread that raised a signal has this frame on top.
	`__kernel_vsyscall`,
	// raise / abort / kill.
	`raise`, `gsignal`, `abort`, `__pthread_kill_implementation`, `__pthread_kill_internal`,
	`pthread_kill`, `__pthread_kill`, `__GI___pthread_kill`, `kill`, `tgkill`,
	// assert and fortify.
	`__assert_fail`, `__assert_fail_base`, `__assert_perror_fail`, `__assert`,
	`__libc_message`, `__libc_message_impl`, `__libc_fatal`, `__fortify_fail`, `__fortify_fail_abort`,
	`__chk_fail`, `__stack_chk_fail`, `__stack_chk_fail_local`,
	// glibc malloc internals and entry points.
	`malloc_printerr`, `_int_free`, `_int_free_.*`, `_int_malloc`, `_int_realloc`, `_int_memalign`,
	`malloc_consolidate`, `unlink_chunk`, `tcache_.*`, `checked_request2size`,
	`free`, `__libc_free`, `cfree`, `malloc`, `__libc_malloc`, `realloc`, `__libc_realloc`,
	`calloc`, `__libc_calloc`, `memalign`, `__libc_memalign`, `posix_memalign`, `aligned_alloc`,
	// (static glibc's symbol tables name the entry points by these aliases)
	`__free`, `__malloc`, `__realloc`, `__calloc`,
	`operator delete`, `operator delete\[\]`, `operator new`, `operator new\[\]`,
	// C++ exceptions and terminate.
	`std::terminate`, `__cxxabiv1::__terminate`, `__cxxabiv1::__unexpected`, `std::unexpected`,
	`__gnu_cxx::__verbose_terminate_handler`, `__cxa_throw`, `__cxa_rethrow`,
	`__cxa_call_terminate`, `__cxa_call_unexpected`, `__cxa_pure_virtual`, `__cxa_deleted_virtual`,
	`_Unwind_RaiseException`, `_Unwind_Resume`, `_Unwind_Resume_or_Rethrow`, `__gxx_personality_v0`,
	`std::__throw_.*`,
	// Rust panics and aborts.
	`core::panicking::.*`, `std::panicking::.*`, `rust_panic`, `__rust_start_panic`,
	`rust_begin_unwind`, `__rustc::rust_begin_unwind`, `panic_abort::.*`, `__rust_abort`,
	`std::sys::.*abort.*`, `std::process::abort`, `std::sys::backtrace::__rust_end_short_backtrace`,
	`std::sys_common::backtrace::__rust_end_short_backtrace`,
	`core::option::unwrap_failed`, `core::option::expect_failed`, `core::result::unwrap_failed`,
	`core::slice::index::.*_fail`, `core::str::slice_error_fail.*`,
	// Go runtime: signal handling, panics, throws, crashes.
	`runtime\.(raise|raiseproc|dieFromSignal|crash|sigpanic|sigfwdgo|sigfwd|panicmem|panicmemAddr|gopanic|fatalpanic|fatalthrow|throw|fatal|sighandler|sigtrampgo|sigtramp|sigreturn.*|abort|startpanic_m|dopanic_m|exit|tgkill|signalM|preprintpanics|panicIndex.*|panicSlice.*|panicdivide|panicshift|panicwrap|panicdottype.*|panicnildottype|panicunsafe.*|goPanic.*|systemstack|mcall|morestack|asmcgocall|cgocall)`,
}

// DefaultPrefix lists frames that are kept in a signature but do not
// count toward its depth: a crash in strlen or memcpy is a bad argument,
// and which function passed it is the bug, so the signature goes on to the
// next frame ("strlen | parse_record"). In a skip list file these lines
// start with '+'. glibc's CPU-specific variants (__strlen_evex,
// __memmove_avx_unaligned_erms) are normalized to the plain name first.
var DefaultPrefix = []string{
	`(mem|str|stp|wcs|wmem|wcp)[a-z]*`, `__(mem|str|stp|wcs|wmem)[a-z]*_chk`,
	`v?[sfdn]*printf`, `__v[sfn]*printf_internal`, `__printf_buffer.*`, `_IO_.*`, `puts`, `fputs`,
}

// SkipList decides which frames a signature leaves out (skip) and which it
// keeps without counting them (prefix).
type SkipList struct {
	skip, prefix, module *regexp.Regexp // nil: none
	patterns             []string
	// memo maps raw function names to their classification: a batch sees
	// the same few hundred names in thousands of cores, and normalizing
	// plus matching costs microseconds each.
	memo  sync.Map // string -> frameClass
	nMemo atomic.Int64
	// each holds the patterns compiled one by one, for Which: compiled
	// once, not once a skipped frame (--explain over a batch explains
	// every skipped frame; compiling them each time was 87% of
	// triaging Rust cores). Signing alone never asks Which.
	eachOnce sync.Once
	each     []*regexp.Regexp // nil where a pattern does not compile alone
}

// frameClass is what a function name becomes in a signature.
type frameClass struct {
	name         string // normalized
	skip, prefix bool
	// Set per frame, not memoized: the module's base name, whether the
	// frame is skipped for its pc being in no module or for its module
	// being machinery, its app mark (+1 +app, -1 -app, 0 none) and the
	// rules line that decided it ("" for none).
	module               string
	noModule, moduleSkip bool
	app                  int
	rule                 string
}

// maxMemo bounds the memo (hostile cores could carry endless names).
const maxMemo = 1 << 16

// classify normalizes a raw function name and matches it, memoized.
func (s *SkipList) classify(raw string) frameClass {
	if s == nil {
		return frameClass{name: NormalizeFunction(raw)}
	}
	if c, ok := s.memo.Load(raw); ok {
		return c.(frameClass)
	}
	n := NormalizeFunction(raw)
	c := frameClass{name: n, skip: s.Skip(n), prefix: s.Prefix(n)}
	if s.nMemo.Add(1) <= maxMemo {
		s.memo.Store(raw, c)
	}
	return c
}

// NewSkipList compiles patterns: each a whole-name regular expression of
// a frame to skip, or, with a leading '+', of a prefix frame, or, with a
// leading "module:", of the base name of a module whose frames (named or
// not) are skipped.
func NewSkipList(patterns []string) (*SkipList, error) {
	s := &SkipList{patterns: append([]string(nil), patterns...)}
	var skip, prefix, module []string
	for _, p := range patterns {
		list := &skip
		if strings.HasPrefix(p, "+") {
			p, list = p[1:], &prefix
		} else if m, ok := strings.CutPrefix(p, modulePrefix); ok {
			p, list = m, &module
		}
		if _, err := regexp.Compile(p); err != nil {
			return nil, fmt.Errorf("skip pattern %q: %w", p, err)
		}
		*list = append(*list, p)
	}
	var err error
	if s.skip, err = wholeNames(skip); err != nil {
		return nil, err
	}
	if s.prefix, err = wholeNames(prefix); err != nil {
		return nil, err
	}
	if s.module, err = wholeNames(module); err != nil {
		return nil, err
	}
	return s, nil
}

// modulePrefix marks a skip pattern that matches modules' base names.
const modulePrefix = "module:"

// DefaultPatterns is the default list: DefaultSkip, the machinery of
// DefaultMachinery (its modules with "module:") and DefaultPrefix (with
// their '+').
func DefaultPatterns() []string {
	out := append(append([]string(nil), DefaultSkip...), machineryFunctions()...)
	for _, p := range machineryModules() {
		out = append(out, modulePrefix+p)
	}
	for _, p := range DefaultPrefix {
		out = append(out, "+"+p)
	}
	return out
}

func wholeNames(pats []string) (*regexp.Regexp, error) {
	if len(pats) == 0 {
		return nil, nil
	}
	re, err := regexp.Compile(`^(?:` + strings.Join(pats, `|`) + `)$`)
	if err != nil {
		return nil, fmt.Errorf("skip patterns: %w", err)
	}
	return re, nil
}

// Skip reports whether a frame with this normalized name says nothing.
func (s *SkipList) Skip(name string) bool {
	return s != nil && s.skip != nil && s.skip.MatchString(name)
}

// Prefix reports whether a frame is kept without counting toward depth.
func (s *SkipList) Prefix(name string) bool {
	return s != nil && s.prefix != nil && s.prefix.MatchString(name)
}

// SkipModule reports whether every frame in the module with this base
// name is machinery.
func (s *SkipList) SkipModule(base string) bool {
	return s != nil && s.module != nil && s.module.MatchString(base)
}

// Which returns the first of the list's patterns that matches a frame
// (its normalized name, its module's base name), "" for none: what
// --explain says skipped it. One match a pattern: slower than Skip.
func (s *SkipList) Which(name, module string) string {
	if s == nil {
		return ""
	}
	s.eachOnce.Do(func() {
		s.each = make([]*regexp.Regexp, len(s.patterns))
		for i, p := range s.patterns {
			pat := strings.TrimPrefix(p, "+")
			if m, ok := strings.CutPrefix(p, modulePrefix); ok {
				pat = m
			}
			if re, err := regexp.Compile(`^(?:` + pat + `)$`); err == nil {
				s.each[i] = re
			}
		}
	})
	for i, p := range s.patterns {
		subject := name
		if strings.HasPrefix(p, modulePrefix) {
			subject = module
		}
		if re := s.each[i]; re != nil && subject != "" && re.MatchString(subject) {
			return p
		}
	}
	return ""
}

// Patterns returns the list's patterns, for documentation and --help.
func (s *SkipList) Patterns() []string { return append([]string(nil), s.patterns...) }

// ReadSkipFile reads skip patterns from a file: one regular expression a
// line (with a leading '+' for a prefix frame), blank lines and lines
// starting with '#' ignored; a line "@default" stands for the default
// list (so a file can extend the defaults rather than replace them).
func ReadSkipFile(path string) ([]string, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pats, err := parseSkipLines(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pats, nil
}

func parseSkipLines(r io.Reader) ([]string, error) {
	var pats []string
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case line == "@default":
			pats = append(pats, DefaultPatterns()...)
		default:
			if _, err := regexp.Compile(strings.TrimPrefix(line, "+")); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			pats = append(pats, line)
		}
	}
	return pats, sc.Err()
}

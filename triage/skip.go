package triage

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
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
	// Signal delivery.
	`__restore_rt`, `__kernel_rt_sigreturn`, `_sigtramp`,
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
	`runtime\.(raise|raiseproc|dieFromSignal|crash|sigpanic|panicmem|panicmemAddr|gopanic|fatalpanic|fatalthrow|throw|fatal|sighandler|sigtrampgo|sigtramp|sigreturn.*|abort|startpanic_m|dopanic_m|exit|tgkill|signalM|preprintpanics|panicIndex.*|panicSlice.*|panicdivide|panicshift|panicwrap|panicdottype.*|panicnildottype|panicunsafe.*|goPanic.*|systemstack|mcall|morestack|asmcgocall|cgocall)`,
}

// SkipList decides which frames a signature leaves out.
type SkipList struct {
	re       *regexp.Regexp // nil: skip nothing
	patterns []string
}

// NewSkipList compiles patterns (each a whole-name regular expression).
func NewSkipList(patterns []string) (*SkipList, error) {
	s := &SkipList{patterns: append([]string(nil), patterns...)}
	if len(patterns) == 0 {
		return s, nil
	}
	for _, p := range patterns {
		if _, err := regexp.Compile(p); err != nil {
			return nil, fmt.Errorf("skip pattern %q: %w", p, err)
		}
	}
	re, err := regexp.Compile(`^(?:` + strings.Join(patterns, `|`) + `)$`)
	if err != nil {
		return nil, fmt.Errorf("skip patterns: %w", err)
	}
	s.re = re
	return s, nil
}

// Skip reports whether a frame with this normalized name says nothing.
func (s *SkipList) Skip(name string) bool { return s != nil && s.re != nil && s.re.MatchString(name) }

// Patterns returns the list's patterns, for documentation and --help.
func (s *SkipList) Patterns() []string { return append([]string(nil), s.patterns...) }

// ReadSkipFile reads skip patterns from a file: one regular expression a
// line, blank lines and lines starting with '#' ignored; a line "@default"
// stands for DefaultSkip (so a file can extend the defaults rather than
// replace them).
func ReadSkipFile(path string) ([]string, error) {
	f, err := os.Open(path)
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
			pats = append(pats, DefaultSkip...)
		default:
			if _, err := regexp.Compile(line); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			pats = append(pats, line)
		}
	}
	return pats, sc.Err()
}

package triage

import (
	"testing"

	"github.com/coreunwind/coreunwind/report"
)

// withProgram sets a report's executable.
func withProgram(r *report.Report, exe string) *report.Report {
	r.Core.Executable = report.Ptr(exe)
	return r
}

// Signatures of version 2 (issue 25): the program's name is in the key,
// the machinery of libc, C++ and Rust is skipped, named or not, and the
// crash's own words join the key.
func TestSignMeaningful(t *testing.T) {
	skip, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	sign := func(depth int, r *report.Report) Signature {
		return (&Signer{Skip: skip, Depth: depth}).Sign(r)
	}
	// The program, by name not path, is part of the id, not of the text.
	a := sign(1, withProgram(reportOf("SIGSEGV", "main"), "/usr/bin/alpha"))
	b := sign(1, withProgram(reportOf("SIGSEGV", "main"), "/usr/bin/beta"))
	c := sign(1, withProgram(reportOf("SIGSEGV", "main"), "/opt/other/alpha"))
	if a.ID == b.ID || a.ID != c.ID || a.Program != "alpha" || a.Text != "main" {
		t.Errorf("programs: alpha %+v, beta %+v, alpha elsewhere %+v", a, b, c)
	}

	frameInModule := func(module string, off uint64) report.Frame {
		return report.Frame{Module: report.Ptr(module), ModuleOffset: report.Ptr(report.Hex(off))}
	}
	cxx := reportOf("SIGABRT", "__pthread_kill_implementation", "raise", "abort")
	th := &cxx.Threads[1]
	th.Frames = append(th.Frames, frameInModule("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", 0x9d919),
		frameInModule("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", 0xa8e1a))
	th.Frames = append(th.Frames, reportOf("", "Parser::fail(int)", "main", "__libc_start_call_main", "__libc_start_main_impl", "_start").Threads[1].Frames...)
	cxx.Crash = &report.Crash{Kind: "terminate", ExceptionType: report.Ptr("std::runtime_error")}

	for _, tc := range []struct {
		name  string
		depth int
		rep   *report.Report
		want  string
	}{
		{"unnamed libstdc++ frames skipped, exception type joins", 1, cxx, "exception: std::runtime_error | Parser::fail"},
		{"libc start not counted", 3, reportOf("SIGSEGV", "store", "main", "__libc_start_call_main", "__libc_start_main_impl", "_start"), "store | main"},
		{"thread start not counted", 3, reportOf("SIGSEGV", "worker", "start_thread", "clone3"), "worker"},
		{"rust abort", 1, reportOf("SIGABRT", "__pthread_kill_implementation", "raise", "abort", "std::sys::pal::unix::abort_internal", "__rustc::__rust_abort", "__rustc::rust_panic", "__rustc::rust_begin_unwind", "core::panicking::panic_fmt", "fleet::ship::launch::h0123456789abcdef", "fleet::main"), "fleet::ship::launch"},
		{"rust start", 3, reportOf("SIGSEGV", "fleet::main", "core::ops::function::FnOnce::call_once", "std::sys::backtrace::__rust_begin_short_backtrace", "std::rt::lang_start::{{closure}}", "std::rt::lang_start_internal", "main"), "fleet::main | main"},
		{"pc in no module is left out", 1, func() *report.Report {
			r := reportOf("SIGSEGV", "call_handler", "main")
			r.Threads[1].Frames = append([]report.Frame{{PC: 0xdead}}, r.Threads[1].Frames...)
			return r
		}(), "call_handler"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s := sign(tc.depth, tc.rep); s.Text != tc.want {
				t.Errorf("signature %q, want %q", s.Text, tc.want)
			}
		})
	}
	if s := sign(1, &report.Report{Threads: []report.Thread{{Frames: []report.Frame{{PC: 0x10}}}}}); s.Text != "(no module)" {
		t.Errorf("only a frame in no module: %q, want (no module), never a bare ?", s.Text)
	}

	// Abort messages: numbers and pointers replaced.
	abortMsg := func(msg string) Signature {
		r := reportOf("SIGABRT", "raise", "abort", "__libc_message_impl", "malloc_printerr", "release", "main")
		r.Crash = &report.Crash{Kind: "abort_message", AbortMessage: report.Ptr(msg)}
		return sign(1, r)
	}
	d, e := abortMsg("free(): double free detected in tcache 2\n"), abortMsg("munmap_chunk(): invalid pointer 0x55d0c0de1000")
	if d.Text != "abort: free(): double free detected in tcache N | release" || e.Text != "abort: munmap_chunk(): invalid pointer 0xN | release" {
		t.Errorf("abort messages: %q, %q", d.Text, e.Text)
	}
	// A Rust panic's location replaces the frames: the same unwrap from
	// two callers, built in two directories, is one bucket.
	panicAt := func(loc, caller string) Signature {
		r := reportOf("SIGABRT", "core::option::unwrap_failed", "fleet::ship::launch", caller)
		r.Crash = &report.Crash{Kind: "rust_panic", PanicLocation: report.Ptr(loc), PanicMessage: report.Ptr("called `Option::unwrap()` on a `None` value")}
		return sign(1, r)
	}
	f, g := panicAt("/home/a/fleet/src/ship.rs:42:17", "fleet::main"), panicAt("/build/fleet/src/ship.rs:42:17", "fleet::dock")
	if f.ID != g.ID || f.Text != "panic at ship.rs:42:17" {
		t.Errorf("rust panics %q %q", f.Text, g.Text)
	}
}

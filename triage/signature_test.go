package triage

import (
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/report"
)

// frames builds a crashed thread from function names; "" is a frame with
// no symbol in /lib/libx.so at offset 0x1234.
func reportOf(signal string, names ...string) *report.Report {
	r := &report.Report{Threads: []report.Thread{{TID: 1}, {TID: 2, Crashed: true}}}
	if signal != "" {
		r.Core.Signal = &report.Signal{Name: signal}
	}
	for _, n := range names {
		f := report.Frame{Module: report.Ptr("/lib/libx.so"), ModuleOffset: report.Ptr(report.Hex(0x1234))}
		if n != "" {
			f.Function = report.Ptr(n)
		}
		r.Threads[1].Frames = append(r.Threads[1].Frames, f)
	}
	return r
}

func TestSign(t *testing.T) {
	skip, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		depth  int
		rep    *report.Report
		frames string
	}{
		{"assert machinery skipped", 1, reportOf("SIGABRT", "__pthread_kill_implementation", "__pthread_kill_internal", "__GI_raise", "__GI_abort", "__assert_fail_base.cold", "__assert_fail", "check(int)", "main"), "check"},
		{"double free", 1, reportOf("SIGABRT", "__pthread_kill_implementation", "raise", "abort", "__libc_message_impl", "malloc_printerr", "_int_free_merge_chunk", "__GI___libc_free", "release.isra.0", "main"), "release"},
		{"deeper", 3, reportOf("SIGSEGV", "a", "b", "c", "d"), "a | b | c"},
		{"tail-call frames are frames", 2, reportOf("SIGABRT", "raise", "abort", "__GI___libc_free", "buf_free", "cleanup", "main"), "buf_free | cleanup"},
		{"prefix does not count", 1, reportOf("SIGSEGV", "__strlen_avx2", "parse", "main"), "strlen | parse"},
		{"no symbol", 1, reportOf("SIGSEGV", "", "main"), "libx.so+0x1234"},
		{"all skipped", 1, reportOf("SIGABRT", "raise", "abort"), "raise"},
		{"rust panic", 1, reportOf("SIGABRT", "std::sys::pal::unix::abort_internal", "std::process::abort", "std::panicking::rust_panic_with_hook", "std::panicking::begin_panic_handler::{{closure}}", "core::panicking::panic_fmt", "core::option::unwrap_failed", "panic::level3::h0123456789abcdef", "main"), "panic::level3"},
		{"c++ terminate", 1, reportOf("SIGABRT", "raise", "abort", "__gnu_cxx::__verbose_terminate_handler()", "__cxxabiv1::__terminate(void (*)())", "std::terminate()", "__cxa_throw", "Parser::fail(int)"), "Parser::fail"},
		{"go runtime", 1, reportOf("SIGSEGV", "runtime.raise", "runtime.dieFromSignal", "runtime.sigfwdgo", "runtime.sigtrampgo", "runtime.sigtramp", "runtime.sigpanic", "main.crash", "main.main"), "main.crash"},
		{"no frames", 1, &report.Report{Threads: []report.Thread{{TID: 1}}}, "(no frames)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := (&Signer{Skip: skip, Depth: tc.depth}).Sign(tc.rep)
			if s.Text != tc.frames || strings.Join(s.Frames, " | ") != s.Text || len(s.ID) != 12 {
				t.Errorf("Sign = %+v, want frames %q", s, tc.frames)
			}
		})
	}
	// The signal is part of the id, not of the text.
	a := (&Signer{Skip: skip}).Sign(reportOf("SIGSEGV", "f"))
	b := (&Signer{Skip: skip}).Sign(reportOf("SIGBUS", "f"))
	if a.Text != b.Text || a.ID == b.ID {
		t.Errorf("SIGSEGV %+v and SIGBUS %+v in f", a, b)
	}
	// Frames are hashed apart: "a | b" is not the frame "a | b".
	c := (&Signer{Depth: 2}).Sign(reportOf("", "a", "b"))
	d := (&Signer{Depth: 2}).Sign(reportOf("", "a | b"))
	if c.ID == d.ID {
		t.Error("two frames and one frame with the same text share an id")
	}
}

func TestParseSkipLines(t *testing.T) {
	pats, err := parseSkipLines(strings.NewReader("# mine\nmy_abort\n\n+my_strlen\n@default\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pats) != 2+len(DefaultPatterns()) || pats[0] != "my_abort" || pats[1] != "+my_strlen" {
		t.Errorf("patterns %q", pats[:2])
	}
	s, err := NewSkipList(pats)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Skip("my_abort") || !s.Skip("raise") || !s.Prefix("my_strlen") || s.Skip("my_abort_not") {
		t.Error("skip list does not match its patterns as whole names")
	}
	if _, err := parseSkipLines(strings.NewReader("ok\n(unclosed\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad pattern: %v", err)
	}
}

func FuzzParseSkipLines(f *testing.F) {
	f.Add("# c\nfoo\n+bar.*\n@default\n")
	f.Add("(\n")
	f.Fuzz(func(t *testing.T, text string) {
		pats, err := parseSkipLines(strings.NewReader(text))
		if err != nil {
			return
		}
		if _, err := NewSkipList(pats); err != nil {
			t.Fatalf("lines accepted one by one but not as a list: %v", err)
		}
	})
}

// A signature is exact when the rest of the stack cannot change it: it
// reached its depth through frames found without heuristics.
func TestSignExact(t *testing.T) {
	skip, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	withTrust := func(r *report.Report, trust ...string) *report.Report {
		for i, tr := range trust {
			r.Threads[1].Frames[i].Trust = tr
		}
		return r
	}
	for _, tc := range []struct {
		name  string
		depth int
		rep   *report.Report
		exact bool
	}{
		{"depth reached by cfi", 1, withTrust(reportOf("SIGSEGV", "__strlen_evex", "parse"), "context", "cfi"), true},
		{"only a prefix frame", 1, withTrust(reportOf("SIGSEGV", "__strlen_evex"), "context"), false},
		{"only skipped frames", 1, withTrust(reportOf("SIGABRT", "raise", "abort"), "context", "cfi"), false},
		{"depth not reached", 2, withTrust(reportOf("SIGSEGV", "a"), "context"), false},
		{"a skipped frame found by scanning", 1, withTrust(reportOf("SIGABRT", "raise", "abort", "check"), "context", "scan", "cfi"), false},
		{"frame pointer", 1, withTrust(reportOf("SIGSEGV", "a", "b"), "context", "frame_pointer"), true},
		{"frame pointer in the signature", 2, withTrust(reportOf("SIGSEGV", "a", "b"), "context", "frame_pointer"), false},
		{"unwind tables", 2, withTrust(reportOf("SIGSEGV", "a", "b", "c"), "context", "unwind_table", "scan"), true},
		// Frames rebuilt from call-site records are proven: a double
		// free through two tail calls signs exactly at depth 2.
		{"tail calls", 2, withTrust(reportOf("SIGABRT", "raise", "abort", "__GI___libc_free", "buf_free", "cleanup", "main"), "context", "cfi", "cfi", report.TrustTailCall, report.TrustTailCall, "cfi"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s := (&Signer{Skip: skip, Depth: tc.depth}).Sign(tc.rep); s.Exact != tc.exact {
				t.Errorf("Sign = %+v, want exact %v", s, tc.exact)
			}
		})
	}
}

// A stack overflow buckets by its recursion cycle, an assertion by its
// message, normalized: the same bug from other builds, paths and entry
// points of the cycle is one bucket.
func TestSignCrashAnalysis(t *testing.T) {
	s := &Signer{}
	overflow := func(cycle ...string) Signature {
		r := reportOf("SIGSEGV", "down_b", "down_a", "down_b")
		r.Crash = &report.Crash{Kind: "stack_overflow", Recursion: cycle}
		return s.Sign(r)
	}
	a, b := overflow("down_a", "down_b(int)"), overflow("down_a", "down_b")
	if a.ID != b.ID || a.Text != "stack overflow: down_a -> down_b" || !a.Exact {
		t.Errorf("overflow signatures %+v and %+v", a, b)
	}
	assertion := func(msg string, frames ...string) Signature {
		r := reportOf("SIGABRT", frames...)
		r.Crash = &report.Crash{Kind: "assertion", AbortMessage: report.Ptr(msg)}
		return s.Sign(r)
	}
	c := assertion("prog: /home/a/src/bank.c:42: check_balance: Assertion `balance >= 0' failed.", "check_balance", "main")
	d := assertion("./other: /build/src/bank.c:57: check_balance: Assertion `balance >= 0' failed.", "check_balance", "run")
	e := assertion("prog: /home/a/src/bank.c:42: check_balance: Assertion `balance > 0' failed.", "check_balance", "main")
	if c.ID != d.ID || c.Text != "assertion: bank.c: check_balance: Assertion `balance >= 0' failed." {
		t.Errorf("same assertion, two signatures: %q %q", c.Text, d.Text)
	}
	if c.ID == e.ID {
		t.Errorf("different assertions share a signature: %q", c.Text)
	}
	// Without the analysis, the frames decide.
	if f := s.Sign(reportOf("SIGABRT", "check_balance")); f.Text != "check_balance" {
		t.Errorf("no crash analysis: %q", f.Text)
	}
}

func FuzzNormalizeAssertion(f *testing.F) {
	f.Add("prog: /a/b.c:42: f: Assertion `x' failed.")
	f.Add("b.c:1: Assertion `x' failed.")
	f.Add("::::")
	f.Fuzz(func(t *testing.T, msg string) {
		n := NormalizeAssertion(msg)
		if len(n) > len(msg) {
			t.Fatalf("normalized %q grew to %q", msg, n)
		}
	})
}

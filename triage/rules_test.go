package triage

import (
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/report"
)

// The rules file changes the buckets as docs/triage.md says: each
// action, and later lines over earlier ones.
func TestRulesChangeSignatures(t *testing.T) {
	skip, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	const rulesText = `# the project's rules
function:log_and_die skip          # our own abort wrapper
function:checked_copy prefix       # a bad argument: the caller is the bug
module:libvendor\.so.* -app
function:"app::.*" +app
function:app::util::.* -app        # later line wins: util frames are not app
signature:"parse_header" program:server -> header-parser-crash
message:"abort: free\(\): double free.*" -> double-free
`
	rules, err := ParseRules(strings.NewReader(rulesText))
	if err != nil {
		t.Fatal(err)
	}
	signer := &Signer{Skip: skip, Rules: rules}
	plain := &Signer{Skip: skip}
	inModule := func(r *report.Report, i int, module string) *report.Report {
		r.Threads[1].Frames[i].Module = report.Ptr(module)
		return r
	}
	for _, tc := range []struct {
		name          string
		rep           *report.Report
		without, with string
	}{
		{"skip", reportOf("SIGABRT", "raise", "abort", "log_and_die", "load_config", "main"), "log_and_die", "load_config"},
		{"prefix", reportOf("SIGSEGV", "checked_copy", "fill", "main"), "checked_copy", "checked_copy | fill"},
		{"-app module", inModule(reportOf("SIGSEGV", "vendor_parse", "handle", "main"), 0, "/opt/v/libvendor.so.2"), "vendor_parse", "handle"},
		{"+app: only app frames", reportOf("SIGSEGV", "memcpy_helper", "framework::dispatch", "app::handler", "main"), "memcpy_helper", "app::handler"},
		{"later line wins", reportOf("SIGSEGV", "app::util::copy", "app::handler", "main"), "app::util::copy", "app::handler"},
		{"fingerprint by signature and program", withProgram(reportOf("SIGSEGV", "parse_header", "main"), "/usr/sbin/server"), "parse_header", "header-parser-crash"},
		{"fingerprint needs every matcher", withProgram(reportOf("SIGSEGV", "parse_header", "main"), "/usr/bin/client"), "parse_header", "parse_header"},
		{"fingerprint by message", func() *report.Report {
			r := reportOf("SIGABRT", "raise", "abort", "release", "main")
			r.Crash = &report.Crash{Kind: "abort_message", AbortMessage: report.Ptr("free(): double free detected in tcache 2")}
			return r
		}(), "abort: free(): double free detected in tcache N | release", "double-free"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := plain.Sign(tc.rep).Text; got != tc.without {
				t.Errorf("without rules: %q, want %q", got, tc.without)
			}
			if got := signer.Sign(tc.rep).Text; got != tc.with {
				t.Errorf("with rules: %q, want %q", got, tc.with)
			}
		})
	}
	// A fingerprint is one bucket whatever the program or signal.
	fp, err := ParseRules(strings.NewReader("signature:\"(release|other)\" -> cleanup-bug\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := (&Signer{Skip: skip, Rules: fp}).Sign(withProgram(reportOf("SIGABRT", "raise", "abort", "release"), "/bin/a"))
	b := (&Signer{Skip: skip, Rules: fp}).Sign(withProgram(reportOf("SIGSEGV", "other"), "/bin/b"))
	if a.ID != b.ID || a.Text != "cleanup-bug" || a.Fingerprint != 1 {
		t.Errorf("fingerprinted %+v and %+v", a, b)
	}
	// keep: a frame the defaults skip counts again.
	keep, err := ParseRules(strings.NewReader("function:abort keep\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := (&Signer{Skip: skip, Rules: keep}).Sign(reportOf("SIGABRT", "raise", "abort", "main")).Text; got != "abort" {
		t.Errorf("keep abort: %q", got)
	}
	if rules.Digest() == "" || rules.Digest() == keep.Digest() {
		t.Error("rules digests do not tell two rules files apart")
	}
}

// An invalid rules file is an error naming its line.
func TestRulesErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"function:a skip\nfunction:( skip\n", "line 2: matcher function: error parsing regexp"},
		{"\n\nfunction:a explode\n", "line 3: action \"explode\""},
		{"skip\n", "line 1: no matcher"},
		{"symbol:a skip\n", "line 1: matcher \"symbol:a\""},
		{"# c\nsignature:a ->\n", "line 2: want MATCHER... -> NAME"},
		{"function:a function:b skip\n", "line 1: matcher function: given twice"},
		{"function:\"unterminated skip\n", "line 1: unterminated quoted value of function"},
		{"signature:a -> x -> y\n", "line 1: want MATCHER... -> NAME"},
		{"function:a -> x\n", "line 1: matcher \"function:a\""},
	} {
		_, err := ParseRules(strings.NewReader(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func FuzzParseRules(f *testing.F) {
	f.Add("function:a skip\nmodule:libx\\.so -app\nsignature:\"a b\" -> name\n")
	f.Add("function:\"x\\\"y\" +app # c\n")
	f.Add("-> x\n")
	f.Fuzz(func(t *testing.T, text string) {
		rules, err := ParseRules(strings.NewReader(text))
		if err != nil {
			return
		}
		// Whatever parsed signs without panicking.
		s := &Signer{Rules: rules}
		s.Sign(reportOf("SIGSEGV", "a", "b", ""))
	})
}

package triage

import (
	"strings"
	"testing"
)

// --explain says, frame by frame, what made the signature and what
// skipped the rest: a default pattern, a machinery module, a rules line.
func TestExplain(t *testing.T) {
	skip, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	rules, err := ParseRules(strings.NewReader("# r\nfunction:log_and_die skip\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := reportOf("SIGABRT", "raise", "abort", "log_and_die", "load_config", "main", "__libc_start_call_main")
	f := &r.Threads[1].Frames[1]
	f.Function, f.Module = nil, new(string)
	*f.Module = "/usr/lib/libstdc++.so.6.0.30"
	e := (&Signer{Skip: skip, Depth: 1, Rules: rules}).Explain(r)
	want := []struct{ use, why string }{
		{UseSkipped, "skip list: raise"},
		{UseSkipped, "machinery module: module:libstdc\\+\\+\\.so.*"},
		{UseSkipped, "rules line 2: function:log_and_die skip"},
		{UseSignature, ""},
		{UseBeyondDepth, ""},
		{UseBeyondDepth, ""},
	}
	if len(e.Frames) != len(want) || e.Sig.Text != "load_config" {
		t.Fatalf("explanation %+v", e)
	}
	for i, w := range want {
		if d := e.Frames[i]; d.Use != w.use || d.Why != w.why || d.Index != i {
			t.Errorf("frame %d: %+v, want %s (%s)", i, d, w.use, w.why)
		}
	}
	var b strings.Builder
	if err := WriteExplanation(&b, "core.1", e); err != nil || !strings.Contains(b.String(), "#2   skipped      log_and_die (rules line 2: function:log_and_die skip)") {
		t.Errorf("text: %v\n%s", err, b.String())
	}
}

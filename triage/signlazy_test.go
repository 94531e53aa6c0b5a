package triage

import (
	"fmt"
	"strings"
	"testing"
)

// TestSignClassifiesTheFramesItUses: signing a deep stack classifies
// (normalizes, matches against the skip list, the rules) the frames
// down to its depth and the Stack's, not every frame. A recursion of
// hundreds of distinct functions (the generated C++ program's 330)
// was classified whole twice a core, a tenth of signing a batch of its
// cores. The signature is the one every frame classified gives:
// +app rules, which need every frame, and an explanation, which lists
// every frame, still see them all.
func TestSignClassifiesTheFramesItUses(t *testing.T) {
	names := []string{"__pthread_kill_implementation", "raise", "abort"}
	for i := range 1000 {
		names = append(names, fmt.Sprintf("gen::u%d::entry", i))
	}
	r := reportOf("SIGABRT", names...)
	skip, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	sig := (&Signer{Skip: skip, Depth: 2}).Sign(r)
	if sig.Text != "gen::u0::entry | gen::u1::entry" || len(sig.Stack) != StackDepth || sig.Stack[StackDepth-1] != "gen::u15::entry" {
		t.Fatalf("Sign = %q, stack %q", sig.Text, sig.Stack)
	}
	// 3 skipped frames and 16 of the Stack.
	if n := skip.nMemo.Load(); n > 3+StackDepth {
		t.Errorf("signing classified %d distinct frames of %d, want at most %d", n, len(names), 3+StackDepth)
	}

	// One +app frame at the bottom: it alone is meaningful.
	rules, err := ParseRules(strings.NewReader(`function:gen::u999::entry +app` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	app := (&Signer{Skip: skip, Depth: 2, Rules: rules}).Sign(r)
	if app.Text != "gen::u999::entry" || len(app.Stack) != 1 {
		t.Errorf("with a +app rule: Sign = %q, stack %q", app.Text, app.Stack)
	}
	e := (&Signer{Skip: skip, Depth: 2}).Explain(r)
	if len(e.Frames) != len(names) || e.Frames[len(names)-1].Use != UseBeyondDepth || e.Sig.ID != sig.ID {
		t.Errorf("explanation: %d frames of %d, last %+v", len(e.Frames), len(names), e.Frames[len(e.Frames)-1])
	}
}

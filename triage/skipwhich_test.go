package triage

import "testing"

// TestSkipListWhich: Which names the pattern that skips a frame (by its
// name or its module's), none for a frame kept, and compiles the
// patterns once: --explain of a batch explains every skipped frame of
// every core (compiling the 165 default patterns each time was 87% of
// triaging 50 Rust cores).
func TestSkipListWhich(t *testing.T) {
	s, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, module, want string }{
		{"__restore_rt", "libc.so.6", "__restore_rt"},
		{"x", "libstdc++.so.6", `module:libstdc\+\+\.so.*`},
		{"main", "prog", ""},
		{"", "", ""},
	} {
		if got := s.Which(tc.name, tc.module); got != tc.want {
			t.Errorf("Which(%q, %q) = %q, want %q", tc.name, tc.module, got, tc.want)
		}
	}
	if n := testing.AllocsPerRun(50, func() { s.Which("main", "prog") }); n > 5 {
		t.Errorf("Which allocates %.0f times a call: the patterns are compiled again", n)
	}
}

// TestSignAsksNoPattern: signing a report (the batch) leaves Which
// alone; only --explain asks which pattern skipped a frame. The batch
// asked it for every skipped frame of every core and threw the answer
// away (a tenth of a batch's CPU).
func TestSignAsksNoPattern(t *testing.T) {
	s, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	r := reportOf("SIGABRT", "__pthread_kill_implementation", "raise", "abort", "__strlen_avx2", "check(int)", "main")
	signer := &Signer{Skip: s, Depth: 1}
	if got := signer.Sign(r); got.Text != "strlen | check" {
		t.Fatalf("Sign = %+v, want strlen | check", got)
	}
	if s.each != nil {
		t.Error("signing matched the skip patterns one by one, as only --explain needs")
	}
	// The same frames explained do ask it (the check above can fail).
	e := signer.Explain(r)
	if s.each == nil || len(e.Frames) == 0 || e.Frames[1].Why != "skip list: raise" || e.Frames[3].Use != UsePrefix {
		t.Errorf("explanation %+v", e.Frames)
	}
}

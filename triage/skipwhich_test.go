package triage

import "testing"

// TestSkipListWhich: Which names the pattern that skips a frame (by its
// name or its module's), none for a frame kept, and compiles the
// patterns once: a batch explains every skipped frame of every core
// (compiling the 165 default patterns each time was 87% of triaging 50
// Rust cores).
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

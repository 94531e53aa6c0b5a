package report

import (
	"fmt"
	"hash/fnv"
	"strings"
	"testing"
	"unicode"
)

// tokenFrames makes frames from tokens: "a" is a frame of function a,
// "a2" one of function a at another pc (another call site), "?7" a frame
// without a name at pc 7.
func tokenFrames(spec string) []Frame {
	var out []Frame
	for i, tok := range strings.Fields(spec) {
		h := fnv.New64a()
		h.Write([]byte(tok))
		f := Frame{Index: i, PC: Hex(h.Sum64() >> 20), Trust: "cfi"}
		if name := strings.TrimRightFunc(tok, unicode.IsDigit); name != "?" {
			f.Function = Ptr(name)
		}
		out = append(out, f)
	}
	return out
}

// render shows spans compactly: the printed frames' tokens, and
// "[n×more]" for a fold line.
func render(spec string, spans []span) string {
	toks := strings.Fields(spec)
	var b []string
	for _, s := range spans {
		b = append(b, toks[s.start:s.start+s.n]...)
		if s.more > 0 {
			b = append(b, fmt.Sprintf("[%d×%d]", s.n, s.more))
		}
	}
	return strings.Join(b, " ")
}

func TestFold(t *testing.T) {
	for _, tc := range []struct{ name, frames, want string }{
		{"cycle of 1", "a a a a a", "a [1×4]"},
		{"cycle of 1, three times", "a a a", "a [1×2]"},
		{"cycle of 1, twice: no fold", "a a b", "a a b"},
		{"cycle of 2", "a b a b a b", "a b [2×2]"},
		{"cycle of 2, twice: no fold", "x a b a b y", "x a b a b y"},
		{"cycle of 3 with prefix and suffix", "x a b c a b c a b c a b y z", "x a b c [3×2] a b y z"},
		{"two cycles", "a a a a b c b c b c d", "a [1×3] b c [2×2] d"},
		{"the cycle that saves most", "a b a b a b c a b a b a b c a b a b a b c", "a b a b a b c [7×2]"},
		{"same function, other call site: not merged", "a a2 a a3 a a2 a a3", "a a2 a a3 a a2 a a3"},
		{"same function, same call sites", "a a2 a a2 a a2", "a a2 [2×2]"},
		{"frames without names fold by pc", "?1 ?2 ?1 ?2 ?1 ?2 ?3", "?1 ?2 [2×2] ?3"},
		{"different unnamed pcs: no fold", "?1 ?2 ?3 ?4 ?5 ?6", "?1 ?2 ?3 ?4 ?5 ?6"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(tc.frames, fold(tokenFrames(tc.frames))); got != tc.want {
				t.Errorf("fold(%s) = %s, want %s", tc.frames, got, tc.want)
			}
		})
	}
}

// A frame found by another method, or an inlined call, is not the same
// frame even at the same pc.
func TestFoldComparesTrustAndInlined(t *testing.T) {
	fs := tokenFrames("a a a a")
	fs[2].Trust = "scan"
	if got := render("a a a a", fold(fs)); got != "a a a a" {
		t.Errorf("trust: %s", got)
	}
	fs = tokenFrames("a a a a")
	fs[1].Inlined = true
	if got := render("a a a a", fold(fs)); got != "a a a a" {
		t.Errorf("inlined: %s", got)
	}
}

// deepThread is a stack overflow's crashed thread: the faulting frame,
// a→b recursion 50,000 times, main, _start.
func deepThread() Thread {
	spec := "crash" + strings.Repeat(" a b", 50_000) + " main _start"
	return Thread{TID: 7, Crashed: true, Frames: tokenFrames(spec)}
}

func TestWriteTextFoldsRecursion(t *testing.T) {
	r := &Report{Core: Core{PointerSize: 8}, Threads: []Thread{deepThread()}}
	var b strings.Builder
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	fs := r.Threads[0].Frames
	want := fmt.Sprintf(`Thread 7 (crashed):
#0  0x%016x in crash ()
#1  0x%016x in a ()
#2  0x%016x in b ()
    [previous 2 frames repeated 49,999 more times]
#100001 0x%016x in main ()
#100002 0x%016x in _start ()
`, fs[0].PC, fs[1].PC, fs[2].PC, fs[100001].PC, fs[100002].PC)
	if got := b.String()[strings.Index(b.String(), "Thread"):]; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	b.Reset()
	if err := WriteTextOptions(&b, r, TextOptions{NoFold: true}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n#"); n != len(fs) || strings.Contains(b.String(), "repeated") {
		t.Errorf("NoFold: %d frame lines, want %d and no fold line", n, len(fs))
	}
}

func TestWriteHPUXFoldsRecursion(t *testing.T) {
	r := &Report{Core: Core{Arch: "x86_64"}, Threads: []Thread{deepThread()}}
	r.Threads[0].Truncated = true
	var b strings.Builder
	if err := WriteHPUX(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{"Thread 7 (crashed):", "( 0) ", "( 1) ", "( 2) ", "    [previous 2 frames repeated 49,999 more times]",
		"(100001) ", "(100002) ", "   (more stack frames follow)"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to start with %q", i, lines[i], w)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 49990: "49,990", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkFold is the cost of folding a million-frame recursion.
func BenchmarkFold(b *testing.B) {
	fs := tokenFrames("crash" + strings.Repeat(" a b", 500_000) + " main")
	for b.Loop() {
		fold(fs)
	}
}

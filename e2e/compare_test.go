package e2e

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
)

// The comparison rule. For every thread, frames on which gdb and eu-stack
// agree (same pc) must appear in coreunwind's backtrace, in order, with the
// same pc; where the two tools also agree on the function name (after
// normalizeFunc), coreunwind's name must be the same. Between two agreed
// frames coreunwind may show as many frames as the more verbose tool does
// there (gdb shows some glibc inlined frames eu-stack does not, and
// "<signal handler called>" where eu-stack shows __restore_rt). Where one
// tool stops early, coreunwind must go at least as far as the other.

// An agreedFrame is a frame both reference tools print: its position in
// each tool's list, its pc, and the function both name ("" if they differ).
type agreedFrame struct {
	G, E int
	PC   uint64
	Func string
}

// alignReferences pairs gdb's and eu-stack's frames by pc, in order: the
// longest common subsequence of the two pc lists. The common prefix is
// taken directly so that 5000-frame recursions stay cheap.
func alignReferences(g, e []refbt.Frame) []agreedFrame {
	var out []agreedFrame
	pair := func(i, j int) {
		a := agreedFrame{G: i, E: j, PC: g[i].PC}
		if gn, en := normalizeFunc(g[i].Func), normalizeFunc(e[j].Func); gn != "" && gn == en {
			a.Func = gn
		}
		out = append(out, a)
	}
	same := func(i, j int) bool { return g[i].HasPC && e[j].HasPC && g[i].PC == e[j].PC }
	p := 0
	for p < len(g) && p < len(e) && same(p, p) {
		pair(p, p)
		p++
	}
	n, m := len(g)-p, len(e)-p
	if n == 0 || m == 0 {
		return out
	}
	if n*m > 4_000_000 { // not worth a quadratic table: compare position by position
		for k := 0; k < n && k < m; k++ {
			if same(p+k, p+k) {
				pair(p+k, p+k)
			}
		}
		return out
	}
	// lcs[i][j]: length of the LCS of g[p+i:] and e[p+j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case same(p+i, p+j):
				lcs[i][j] = lcs[i+1][j+1] + 1
			case lcs[i+1][j] >= lcs[i][j+1]:
				lcs[i][j] = lcs[i+1][j]
			default:
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case same(p+i, p+j):
			pair(p+i, p+j)
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

var (
	rustHashRE = regexp.MustCompile(`::h[0-9a-f]{16}$`)
	// gcc's names for specialized copies of a function (foo.isra.0,
	// foo.constprop.0, foo.part.0, foo.cold): gdb prints the DWARF name,
	// eu-stack the symbol.
	cloneSuffixRE = regexp.MustCompile(`(\.(isra|constprop|part|cold|lto_priv)(\.\d+)?)+$`)
)

// normalizeFunc reduces a function name as printed by gdb, eu-stack or
// coreunwind to what all three should agree on: no argument list, no
// "@plt" or symbol version, no Rust legacy hash, no gcc clone suffix, no
// glibc "__GI_" alias prefix.
func normalizeFunc(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "@"); i > 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, " const")
	if strings.HasSuffix(s, ")") {
		depth := 0
		for i := len(s) - 1; i >= 0; i-- {
			switch s[i] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				if i > 0 && !strings.HasSuffix(s[:i], "operator") {
					s = s[:i]
				}
				break
			}
		}
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), " const")
	s = rustHashRE.ReplaceAllString(s, "")
	s = cloneSuffixRE.ReplaceAllString(s, "")
	s = strings.TrimPrefix(s, "__GI_")
	if s == "??" {
		return ""
	}
	return s
}

// compareWithReferences applies the comparison rule to every thread either
// reference tool reports and fails the test with the first differing frame
// of each thread that breaks it.
func compareWithReferences(t *testing.T, gdb, eu map[int]*refbt.Thread, rep *report) {
	t.Helper()
	tids := map[int]bool{}
	for tid := range gdb {
		tids[tid] = true
	}
	for tid := range eu {
		tids[tid] = true
	}
	var sorted []int
	for tid := range tids {
		sorted = append(sorted, tid)
	}
	sort.Ints(sorted)
	failed := 0
	for _, tid := range sorted {
		var g, e []refbt.Frame
		if th := gdb[tid]; th != nil {
			g = th.Frames
		}
		if th := eu[tid]; th != nil {
			e = th.Frames
		}
		msg := compareThread(tid, g, e, rep.thread(tid))
		if msg == "" {
			continue
		}
		failed++
		if failed <= 8 {
			t.Error(msg)
		}
	}
	if failed > 8 {
		t.Errorf("... and %d more threads differ", failed-8)
	}
	if failed == 0 {
		t.Logf("coreunwind agrees with gdb and eu-stack on %d threads", len(sorted))
	}
}

// compareThread returns "" when coreunwind's thread satisfies the rule,
// otherwise a description of the first differing frame.
func compareThread(tid int, g, e []refbt.Frame, cu *reportThread) string {
	if cu == nil {
		return fmt.Sprintf("thread %d: missing from coreunwind's report (gdb has %d frames, eu-stack %d)", tid, len(g), len(e))
	}
	c := cu.Frames
	g, e = cutAtGoThreadStart(g), cutAtGoThreadStart(e)
	agreed := alignReferences(g, e)
	next, prevG, prevE := 0, -1, -1
	for _, a := range agreed {
		gap := max(a.G-prevG-1, a.E-prevE-1)
		found := -1
		for k := next; k < len(c) && k <= next+gap; k++ {
			if pc, _ := c[k].pc(); pc == a.PC {
				found = k
				break
			}
		}
		if found < 0 {
			return describeDiff(tid, "pc", g, e, c, a.G, a.E, next, cu)
		}
		if a.Func != "" && normalizeFunc(c[found].Function) != a.Func {
			return describeDiff(tid, "function", g, e, c, a.G, a.E, found, cu)
		}
		next, prevG, prevE = found+1, a.G, a.E
	}
	// Frames without a name at the end of a reference's list are where the
	// tool walked off the stack (gdb's "0x0000000000000000 in ?? ()", Go's
	// g0 stacks): nothing to go as far as.
	gl, el := len(trimUnnamed(g)), len(trimUnnamed(e))
	if need := max(gl-prevG-1, el-prevE-1); len(c)-next < need && !reaches(c[next:], g[:gl], e[:el]) {
		gi, ei := min(prevG+1+need-1, len(g)-1), min(prevE+1+need-1, len(e)-1)
		return describeDiff(tid, "length (coreunwind stops before the reference tools)", g, e, c, gi, ei, len(c), cu)
	}
	return ""
}

// cutAtGoThreadStart ends a reference tool's frames at a Go thread's
// first frame, runtime.clone as a caller, where the Go runtime's
// traceback and coreunwind end: past it the tools read the new thread's
// stack contents, not frames. A thread executing clone (frame 0) is the
// parent, with callers, or the child just born, whose "caller" has no
// name. eu-stack names assembly functions by their symbols, with the
// ABI: runtime.clone.abi0.
func cutAtGoThreadStart(fs []refbt.Frame) []refbt.Frame {
	for i := range fs {
		if strings.TrimSuffix(normalizeFunc(fs[i].Func), ".abi0") != "runtime.clone" {
			continue
		}
		// refbt gives an unnamed eu-stack frame at the end of its
		// line the name "- 1" (its return-address mark).
		if i > 0 || len(fs) == 1 || strings.TrimPrefix(normalizeFunc(fs[1].Func), "- 1") == "" {
			return fs[:i+1]
		}
	}
	return fs
}

// trimUnnamed drops trailing frames that have no function name.
// reaches reports whether coreunwind's remaining frames include the last
// frame of each reference tool that has one: then coreunwind went as far,
// even with fewer frames than gdb, which adds tail-call frames it rebuilds
// from DWARF call-site information (nothing on the stack to find).
func reaches(c []reportFrame, refs ...[]refbt.Frame) bool {
	for _, r := range refs {
		if len(r) == 0 {
			continue
		}
		last := r[len(r)-1].PC
		found := false
		for _, f := range c {
			if pc, _ := f.pc(); pc == last {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func trimUnnamed(fs []refbt.Frame) []refbt.Frame {
	for len(fs) > 0 && normalizeFunc(fs[len(fs)-1].Func) == "" {
		fs = fs[:len(fs)-1]
	}
	return fs
}

func describeDiff(tid int, what string, g, e []refbt.Frame, c []reportFrame, gi, ei, ci int, cu *reportThread) string {
	line := func(n int, s fmt.Stringer) string {
		if s == nil {
			return "(none)"
		}
		return s.String()
	}
	var gs, es, cs fmt.Stringer
	if gi >= 0 && gi < len(g) {
		gs = g[gi]
	}
	if ei >= 0 && ei < len(e) {
		es = e[ei]
	}
	if ci >= 0 && ci < len(c) {
		cs = c[ci]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "thread %d: first differing frame (%s):\n", tid, what)
	fmt.Fprintf(&b, "  gdb:        %s\n", line(gi, gs))
	fmt.Fprintf(&b, "  eu-stack:   %s\n", line(ei, es))
	fmt.Fprintf(&b, "  coreunwind: %s\n", line(ci, cs))
	if cu.Error != nil {
		fmt.Fprintf(&b, "  coreunwind's error for this thread: %s\n", *cu.Error)
	}
	fmt.Fprintf(&b, "  coreunwind's frames (%d, truncated=%v):\n", len(c), cu.Truncated)
	for k := max(0, ci-4); k < len(c) && k < ci+4; k++ {
		fmt.Fprintf(&b, "    %s\n", c[k])
	}
	fmt.Fprintf(&b, "  gdb's frames near there:\n")
	for k := max(0, gi-3); k < len(g) && k < gi+4; k++ {
		fmt.Fprintf(&b, "    %s\n", g[k])
	}
	fmt.Fprintf(&b, "  eu-stack's frames near there:\n")
	for k := max(0, ei-3); k < len(e) && k < ei+4; k++ {
		fmt.Fprintf(&b, "    %s\n", e[k])
	}
	return b.String()
}

// expectCrashedThread checks a report of a crash a test caused against
// what it caused: the arch, the signal, and the crashed thread's
// functions in order. It returns that thread.
func expectCrashedThread(t *testing.T, rep *report, arch string, sig int, funcs ...string) *reportThread {
	t.Helper()
	if rep.Core.Arch != arch {
		t.Errorf("arch = %q, want %s", rep.Core.Arch, arch)
	}
	if s := rep.Core.Signal; s == nil || s.Number != sig {
		t.Errorf("signal = %+v, want %d", s, sig)
	}
	th := rep.thread(rep.Core.CrashedTID)
	if th == nil {
		t.Fatalf("no crashed thread %d in the report", rep.Core.CrashedTID)
	}
	expectFunctions(t, th, funcs...)
	return th
}

package report

import "strconv"

// Deep recursion makes stacks of thousands to hundreds of thousands of
// frames that repeat one short cycle. The text writers fold such a cycle
// the way Python's traceback folds a repeated line: the first occurrence
// is printed in full, then one line
//
//	    [previous 2 frames repeated 49,990 more times]
//
// and the numbering goes on with the frames after the cycle. JSON keeps
// every frame.
//
// Frames are the same when they have the same pc, function, inlined flag,
// signal flag and trust: the pc, not only the function, so that a
// function calling itself from two different lines, or two call sites of
// one function, are not merged, and every folded frame is exactly the
// printed one (same line, same "[frame pointer]" marker). Inlined calls
// share their frame's pc, hence the function.

const (
	// minRepeats: a cycle is folded when it occurs at least this many
	// times in a row (Python folds from the fourth identical line on;
	// here from the third occurrence, when folding saves lines for any
	// cycle length).
	minRepeats = 3
	// maxCycle is the longest cycle looked for, in frames (inlined
	// frames count): mutual recursion through a few functions, each with
	// a few inlined calls, fits; it bounds the search to maxCycle
	// comparisons per printed frame.
	maxCycle = 64
)

// A span is a stretch of a thread's frames as the text writers print
// them: frames[start:start+n] one per line, then, when more > 0, the line
// saying that these n frames repeat more times (which the writer skips).
type span struct {
	start, n, more int
}

// end is the index of the first frame after the span.
func (s span) end() int { return s.start + s.n*(1+s.more) }

// fold splits frames into spans, folding at each position the repeated
// cycle that saves the most lines.
func fold(frames []Frame) []span {
	var out []span
	plain := 0 // first frame of the current unfolded stretch
	for i := 0; i < len(frames); {
		k, reps := bestCycle(frames, i)
		if reps < minRepeats {
			i++
			continue
		}
		if plain < i {
			out = append(out, span{start: plain, n: i - plain})
		}
		s := span{start: i, n: k, more: reps - 1}
		out = append(out, s)
		i = s.end()
		plain = i
	}
	if plain < len(frames) {
		out = append(out, span{start: plain, n: len(frames) - plain})
	}
	return out
}

// unfolded is fold's answer when folding is off: one span of every frame.
func unfolded(frames []Frame) []span {
	if len(frames) == 0 {
		return nil
	}
	return []span{{n: len(frames)}}
}

// bestCycle finds the cycle starting at frames[i] that saves the most
// lines: its length k and how many times it occurs in a row (reps, 1 if
// none repeats minRepeats times). Candidate lengths are the distances at
// which frames[i] recurs; a multiple of a cycle that already folds is
// skipped, as it can only cover the same frames with fewer repeats.
func bestCycle(frames []Frame, i int) (k, reps int) {
	k, reps = 1, 1
	saving := 0
	folds := 0 // length of a folding cycle found so far
	for c := 1; c <= maxCycle && i+c < len(frames); c++ {
		if !sameFrame(&frames[i], &frames[i+c]) || (folds > 0 && c%folds == 0) {
			continue
		}
		j := i + c
		for j < len(frames) && sameFrame(&frames[j], &frames[j-c]) {
			j++
		}
		r := (j - i) / c
		if r < minRepeats {
			continue
		}
		folds = c
		if s := c*r - (c + 1); s > saving {
			k, reps, saving = c, r, s
		}
	}
	return k, reps
}

// sameFrame says whether two frames print the same line, but for their
// index (see the package's folding rule above).
func sameFrame(a, b *Frame) bool {
	return a.PC == b.PC && a.Inlined == b.Inlined && a.Signal == b.Signal && a.Trust == b.Trust &&
		samePtr(a.Function, b.Function) && a.Language == b.Language && samePtr(a.File, b.File) && sameInt(a.Line, b.Line)
}

func sameInt(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func samePtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// foldLine is the line that stands for a cycle's further occurrences
// (always two or more: see minRepeats).
func foldLine(s span) string {
	what := "previous frame"
	if s.n > 1 {
		what = "previous " + strconv.Itoa(s.n) + " frames"
	}
	return "    [" + what + " repeated " + thousands(s.more) + " more times]\n"
}

// thousands writes n with comma thousands separators, as Python's "{:,}".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}

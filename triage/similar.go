package triage

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Similar buckets: exact signatures split one bug over several buckets
// when it is reached through another caller, built at another
// optimisation level or on another architecture (bucket spray). Two
// buckets of one program and signal (linkGroup) with the same crash
// words (wordsAgree) whose stacks align well are likely one bug: a
// similarity in the spirit of TraceSim (Vasiliev et al., 2020) and FaST
// (MSR 2022): frames near the crash weigh more than frames near main,
// frames common to many buckets (main, a dispatcher) weigh less, and the
// stacks are aligned (Needleman-Wunsch) so that a frame inlined away or a
// wrapper added shifts the rest without losing it.

// SimilarBucket is a link from one bucket to another.
type SimilarBucket struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"` // 0..1; 1 for the same stack
}

// DefaultSimilarity is the score from which a bucket is linked to
// another: chosen on the labelled corpus (bench/triage-corpus.sh), where
// `triage eval` reports the links' precision and the spray they recover
// at each threshold.
const DefaultSimilarity = 0.6

// DefaultMaxSimilar is how many links a bucket lists, best first.
const DefaultMaxSimilar = 5

// maxLinkedBuckets bounds the buckets of one program compared pairwise
// (a program with more gets no links: the quadratic cost is the batch's
// whole budget there).
const maxLinkedBuckets = 2000

// Similarity weights: position decay per frame (TraceSim's alpha, here a
// geometric decay) and the loss per frame of distance between two
// aligned frames' positions.
const (
	positionDecay = 0.5
	shiftDecay    = 0.9
)

// linkSimilar sets each bucket's Similar: the buckets of the same program
// whose stacks score at least min, at most max, best first.
func linkSimilar(buckets []*Bucket, min float64, max int) {
	for _, b := range buckets {
		b.Similar = []SimilarBucket{}
	}
	for _, p := range scorePairs(buckets, min) {
		p.a.Similar = append(p.a.Similar, SimilarBucket{ID: p.b.ID, Score: p.score})
		p.b.Similar = append(p.b.Similar, SimilarBucket{ID: p.a.ID, Score: p.score})
	}
	for _, b := range buckets {
		sort.Slice(b.Similar, func(i, j int) bool {
			x, y := b.Similar[i], b.Similar[j]
			if x.Score != y.Score {
				return x.Score > y.Score
			}
			return x.ID < y.ID
		})
		if len(b.Similar) > max {
			b.Similar = b.Similar[:max]
		}
	}
}

// bucketPair is two buckets and their similarity.
type bucketPair struct {
	a, b  *Bucket
	score float64
}

// scorePairs scores every two buckets that have stacks and may be one
// bug (linkGroup), keeping the pairs scoring at least min.
func scorePairs(buckets []*Bucket, min float64) []bucketPair {
	byProgram := map[string][]*Bucket{}
	var programs []string
	for _, b := range buckets {
		if len(b.Stack) == 0 {
			continue
		}
		g := linkGroup(b)
		if byProgram[g] == nil {
			programs = append(programs, g)
		}
		byProgram[g] = append(byProgram[g], b)
	}
	var pairs []bucketPair
	for _, prog := range programs {
		group := byProgram[prog]
		if len(group) < 2 || len(group) > maxLinkedBuckets {
			continue
		}
		w := newFrameWeights(group)
		for i := range group {
			for j := i + 1; j < len(group); j++ {
				if !wordsAgree(group[i], group[j]) {
					continue
				}
				if s := w.similarity(group[i].Stack, group[j].Stack); s >= min {
					pairs = append(pairs, bucketPair{group[i], group[j], s})
				}
			}
		}
	}
	return pairs
}

// frameWeights is how much a frame says: less the more buckets have it
// (an inverse document frequency over the compared buckets).
type frameWeights struct {
	df map[string]int
	n  int
}

func newFrameWeights(group []*Bucket) *frameWeights {
	w := &frameWeights{df: map[string]int{}, n: len(group)}
	for _, b := range group {
		seen := map[string]bool{}
		for _, f := range b.Stack {
			if !seen[f] {
				seen[f] = true
				w.df[f]++
			}
		}
	}
	return w
}

// linkGroup is what two buckets must share to be compared: the program
// and the signal (a NULL store and a failed assertion are two bugs
// whatever their frames).
func linkGroup(b *Bucket) string {
	sig := ""
	if b.Signal != nil {
		sig = *b.Signal
	}
	return b.Program + "\x00" + sig
}

// wordsAgree: two buckets whose keys both have crash words (an abort
// message, an exception type, an assertion) are linked only when the
// words are the same: a double free and a heap corruption caught by
// malloc are two bugs. One without words (the analysis could not read
// them from that core) may be either.
func wordsAgree(a, b *Bucket) bool {
	wa, wb := keyWords(a.Frames), keyWords(b.Frames)
	return wa == "" || wb == "" || wa == wb
}

// weight of frame f at position i of its stack.
func (w *frameWeights) weight(f string, i int) float64 {
	global := 1.0
	if w != nil && w.n > 2 {
		// A frame in every bucket keeps a little weight (1/(1+ln n)),
		// one in a single bucket all of it.
		global = 1 / (1 + math.Log(float64(max(w.df[f], 1))))
	}
	return math.Pow(positionDecay, float64(i)) * global
}

// similarity of two stacks (crash site first), in [0, 1]: the best
// alignment's matched weight, each match counting the geometric mean of
// its two frames' weights, less for frames far apart in position, over
// the mean of the two stacks' whole weights.
func (w *frameWeights) similarity(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	wa, wb := make([]float64, len(a)), make([]float64, len(b))
	total := 0.0
	for i, f := range a {
		wa[i] = w.weight(f, i)
		total += wa[i]
	}
	for j, f := range b {
		wb[j] = w.weight(f, j)
		total += wb[j]
	}
	// dp[i][j]: best matched weight aligning a[:i] with b[:j]; gaps
	// cost nothing here, they count by what they leave unmatched.
	prev := make([]float64, len(b)+1)
	cur := make([]float64, len(b)+1)
	for i := 1; i <= len(a); i++ {
		cur[0] = 0
		for j := 1; j <= len(b); j++ {
			best := max(prev[j], cur[j-1])
			if a[i-1] == b[j-1] {
				gain := 2 * math.Sqrt(wa[i-1]*wb[j-1]) * math.Pow(shiftDecay, math.Abs(float64(i-j)))
				best = max(best, prev[j-1]+gain)
			}
			cur[j] = best
		}
		prev, cur = cur, prev
	}
	s := prev[len(b)] / total
	return math.Round(min(s, 1)*1000) / 1000
}

// StackSimilarity is the similarity of two stacks alone (no other
// buckets to weigh frames by): for tests and tools.
func StackSimilarity(a, b []string) float64 {
	return (*frameWeights)(nil).similarity(a, b)
}

// writeSimilar writes the similar-bucket links under the buckets table,
// one line a bucket that has any: "ID  ~ ID2 0.83, ID3 0.71".
func writeSimilar(w io.Writer, s *Summary) {
	first := true
	for _, b := range s.Buckets {
		if len(b.Similar) == 0 {
			continue
		}
		if first {
			fmt.Fprintf(w, "\nsimilar buckets (likely the same bug; score >= %.2f):\n", DefaultSimilarity)
			first = false
		}
		links := make([]string, len(b.Similar))
		for i, l := range b.Similar {
			links[i] = fmt.Sprintf("%s %.2f", l.ID, l.Score)
		}
		fmt.Fprintf(w, "  %s  ~ %s\n", b.ID, strings.Join(links, ", "))
	}
}

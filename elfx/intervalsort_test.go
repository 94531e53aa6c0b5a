package elfx

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByLoIsStable holds sortByLo to slices.SortStableFunc, which it
// replaced: intervals with the same start keep their order, on inputs
// shaped like .debug_aranges' (runs in order, many starts at 0 from
// discarded COMDAT copies) and on random ones, across the insertion
// block's and the merge's boundaries.
func TestSortByLoIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 9))
	for _, n := range []int{0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 1000, 12575} {
		for _, shape := range []string{"random", "runs", "sorted", "reversed"} {
			iv := make([]interval, n)
			next := uint64(0)
			for i := range iv {
				var lo uint64
				switch shape {
				case "random":
					lo = uint64(rng.IntN(n/4 + 2)) // many equal starts
				case "runs":
					if rng.IntN(8) == 0 {
						next = uint64(rng.IntN(4 * n))
					}
					if rng.IntN(10) == 0 {
						lo = 0
					} else {
						next += uint64(rng.IntN(3))
						lo = next
					}
				case "sorted":
					lo = uint64(i / 3)
				case "reversed":
					lo = uint64((n - i) / 3)
				}
				iv[i] = interval{lo: lo, hi: lo + 1 + uint64(rng.IntN(64)), idx: int32(i)}
			}
			want := slices.Clone(iv)
			slices.SortStableFunc(want, func(a, b interval) int { return cmp.Compare(a.lo, b.lo) })
			sortByLo(iv)
			if !slices.Equal(iv, want) {
				t.Fatalf("%s n=%d: sortByLo differs from a stable sort by lo", shape, n)
			}
		}
	}
}

func BenchmarkSortByLo(b *testing.B) {
	rng := rand.New(rand.NewPCG(29, 9))
	src := make([]interval, 12575)
	next := uint64(0)
	for i := range src {
		if rng.IntN(6) == 0 {
			next = uint64(rng.IntN(1 << 22))
		}
		next += uint64(1 + rng.IntN(256))
		src[i] = interval{lo: next, hi: next + 16, idx: int32(i / 70)}
	}
	iv := make([]interval, len(src))
	for b.Loop() {
		copy(iv, src)
		sortByLo(iv)
	}
}

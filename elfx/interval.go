package elfx

import "sort"

// interval is a half-open address range [lo, hi) tagged with the index of
// whatever it belongs to (a compile unit, a subprogram, a line sequence).
type interval struct {
	lo, hi uint64
	idx    int32
}

// intervalIndex answers "which intervals contain pc" in O(log n + k) for
// intervals that may overlap (COMDAT copies, aliases, discarded sections
// relocated to 0). Intervals are sorted by lo; maxHi[i] is the largest hi
// among the first i+1, so a backward scan from the last interval starting
// at or below pc can stop as soon as nothing earlier reaches past pc.
type intervalIndex struct {
	iv    []interval
	maxHi []uint64
}

func newIntervalIndex(iv []interval) intervalIndex {
	kept := iv[:0]
	for _, r := range iv {
		if r.hi > r.lo {
			kept = append(kept, r)
		}
	}
	iv = kept
	sortByLo(iv)
	maxHi := make([]uint64, len(iv))
	var m uint64
	for i, r := range iv {
		m = max(m, r.hi)
		maxHi[i] = m
	}
	return intervalIndex{iv: iv, maxHi: maxHi}
}

// each calls fn with the idx of every interval containing pc, nearest
// start first, until fn returns false.
func (x *intervalIndex) each(pc uint64, fn func(idx int32) bool) {
	i := sort.Search(len(x.iv), func(i int) bool { return x.iv[i].lo > pc }) - 1
	for ; i >= 0 && x.maxHi[i] > pc; i-- {
		if r := x.iv[i]; pc < r.hi {
			if !fn(r.idx) {
				return
			}
		}
	}
}

// covers reports whether some interval contains pc.
func (x *intervalIndex) covers(pc uint64) bool {
	found := false
	x.each(pc, func(int32) bool { found = true; return false })
	return found
}

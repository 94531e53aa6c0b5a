package report

import (
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
)

// A server's core has hundreds of threads, most parked in the same
// place (a pool waiting on one condition variable): printed one by one
// they bury the few that differ. The text writers print such threads
// once, under a header naming them, as panicparse groups goroutines:
//
//	150 threads (12345, 12346, 12347, ...) with this stack:
//
// Threads group when their stacks are the same frame by frame (same pc,
// function, inlined, signal and trust: sameFrame, as folding compares
// frames) and they stopped the same way (truncated, same error). The
// crashed thread is never grouped and always comes first; groups keep
// the place of their first thread. JSON lists every thread.

// maxGroupIDs is how many thread ids a group's header lists before
// "...": enough to find them in a debugger, not a line per thread.
const maxGroupIDs = 10

// groupThreads returns the threads in the order the text writers print
// them, each group as the indexes of its threads; noGroup makes every
// group one thread.
func groupThreads(threads []Thread, noGroup bool) [][]int {
	return groupStacks(len(threads), noGroup,
		func(i int) bool { return threads[i].Crashed },
		func(i int) []Frame { return threads[i].Frames },
		func(i, j int) bool { return sameStack(&threads[i], &threads[j]) })
}

// groupStacks groups n stacks (threads, goroutines) that same says are
// alike, keeping the place of each group's first; the first crashed one
// is alone and first. frames gives what is hashed to find candidates.
func groupStacks(n int, noGroup bool, crashed func(int) bool, frames func(int) []Frame, same func(i, j int) bool) [][]int {
	var groups [][]int
	var seed maphash.Seed
	byHash := map[uint64][]int{} // stack hash -> indexes into groups
	if !noGroup {
		seed = maphash.MakeSeed()
	}
	first := -1
	for i := 0; i < n; i++ {
		if crashed(i) && first < 0 {
			first = len(groups)
			groups = append(groups, []int{i})
			continue
		}
		if noGroup {
			groups = append(groups, []int{i})
			continue
		}
		h := stackHash(seed, frames(i))
		joined := false
		for _, g := range byHash[h] {
			if same(groups[g][0], i) {
				groups[g] = append(groups[g], i)
				joined = true
				break
			}
		}
		if !joined {
			byHash[h] = append(byHash[h], len(groups))
			groups = append(groups, []int{i})
		}
	}
	if first > 0 {
		c := groups[first]
		copy(groups[1:first+1], groups[:first])
		groups[0] = c
	}
	return groups
}

// stackHash hashes what sameStack compares most cheaply: the pcs.
func stackHash(seed maphash.Seed, frames []Frame) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var b [8]byte
	for i := range frames {
		pc := uint64(frames[i].PC)
		for j := range b {
			b[j] = byte(pc >> (8 * j))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// sameStack says whether a and b print the same frames and stop the
// same way.
func sameStack(a, b *Thread) bool {
	if len(a.Frames) != len(b.Frames) || a.Truncated != b.Truncated || !samePtr(a.Error, b.Error) || a.Python != nil || b.Python != nil {
		// A Python thread state is the thread's own (its pthread id, the
		// GIL, its exception): such threads print under their own header.
		return false
	}
	for i := range a.Frames {
		if !sameFrame(&a.Frames[i], &b.Frames[i]) {
			return false
		}
	}
	return true
}

// groupHeader is the line above a group of two or more threads:
// how many, their shared name if they have one, and the first ids.
func groupHeader(threads []Thread, group []int) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(group)))
	b.WriteString(" threads")
	if name := threads[group[0]].Name; name != nil {
		shared := true
		for _, i := range group[1:] {
			shared = shared && samePtr(name, threads[i].Name)
		}
		if shared {
			b.WriteString(" " + strconv.Quote(*name))
		}
	}
	// In increasing order, as a reader scans for one.
	tids := make([]int, len(group))
	for k, i := range group {
		tids[k] = threads[i].TID
	}
	slices.Sort(tids)
	b.WriteString(" (")
	for k, tid := range tids {
		if k == maxGroupIDs {
			b.WriteString(", ...")
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(tid))
	}
	b.WriteString(") with this stack:\n")
	return b.String()
}

package analyze

import (
	"bufio"
	"bytes"
	"container/heap"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// A perf map (/tmp/perf-PID.map, written by JITs for perf(1)) names
// generated code: one "START SIZE NAME" line per symbol, START and SIZE in
// hex (an optional 0x prefix is accepted). Later lines win where entries
// overlap, as in perf: a JIT that recompiles code appends the new name.
//
// Overlaps are resolved once, when the map is read: the entries become
// disjoint segments, each naming the latest line that covers it, so a
// lookup is one binary search however the lines overlap. (An earlier
// version walked back over overlapping entries on every lookup; one long
// entry followed by many short ones made that quadratic, and bounding the
// walk lost the long entry.)

// Bounds: a map of a long-running JIT can be large, but not unbounded.
const (
	maxPerfMapLines = 1 << 22
	maxPerfMapLine  = 1 << 16
)

type perfEntry struct {
	start, end uint64
	name       string
	seq        int // line order, for "later wins"
}

// perfSegment is a piece of the address space that one entry names.
type perfSegment struct {
	start, end uint64
	entry      int // index into perfMap.entries
}

type perfMap struct {
	entries  []perfEntry   // in line order
	segments []perfSegment // disjoint, sorted by start
	skipped  int           // malformed lines
}

func readPerfMapFile(path string) (*perfMap, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pm, err := parsePerfMap(f)
	if err != nil {
		return nil, fmt.Errorf("perf map %s: %w", path, err)
	}
	return pm, nil
}

// parsePerfMap reads a perf map. Malformed lines are counted and skipped.
func parsePerfMap(r io.Reader) (*perfMap, error) {
	pm := &perfMap{}
	sc := bufio.NewScanner(r)
	// Start small (most lines are short) and grow to the bound.
	sc.Buffer(make([]byte, 256), maxPerfMapLine)
	var err error
	for n := 0; sc.Scan(); n++ {
		if n >= maxPerfMapLines {
			err = fmt.Errorf("more than %d lines", maxPerfMapLines)
			break
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, ok := parsePerfLine(line)
		if !ok {
			pm.skipped++
			continue
		}
		e.seq = n
		pm.entries = append(pm.entries, e)
	}
	if err == nil {
		err = sc.Err()
	}
	pm.segments = resolveOverlaps(pm.entries)
	return pm, err
}

func parsePerfLine(line []byte) (perfEntry, bool) {
	startS, rest, ok1 := bytes.Cut(line, []byte{' '})
	sizeS, name, ok2 := bytes.Cut(bytes.TrimLeft(rest, " "), []byte{' '})
	if !ok1 || !ok2 {
		return perfEntry{}, false
	}
	start, ok3 := parseHex(startS)
	size, ok4 := parseHex(sizeS)
	name = bytes.TrimSpace(name)
	if !ok3 || !ok4 || size == 0 || start+size < start || len(name) == 0 {
		return perfEntry{}, false
	}
	return perfEntry{start: start, end: start + size, name: string(name)}, true
}

// parseHex parses a hex number with an optional 0x prefix.
func parseHex(b []byte) (uint64, bool) {
	b = bytes.TrimPrefix(b, []byte("0x"))
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b), 16, 64)
	return v, err == nil
}

// resolveOverlaps turns entries (in line order) into disjoint segments
// naming, for every covered address, the latest entry covering it. A
// sweep over the entries' boundaries keeps the covering entries in a heap
// by line order: O(n log n) for n entries, at most 2n segments.
func resolveOverlaps(entries []perfEntry) []perfSegment {
	if len(entries) == 0 {
		return nil
	}
	byStart := make([]int, len(entries))
	for i := range byStart {
		byStart[i] = i
	}
	sort.Slice(byStart, func(a, b int) bool { return entries[byStart[a]].start < entries[byStart[b]].start })
	bounds := make([]uint64, 0, 2*len(entries))
	for _, e := range entries {
		bounds = append(bounds, e.start, e.end)
	}
	sort.Slice(bounds, func(a, b int) bool { return bounds[a] < bounds[b] })

	live := &latestFirst{entries: entries}
	var segs []perfSegment
	next := 0 // next entry of byStart to enter the sweep
	for i := 0; i+1 < len(bounds); i++ {
		lo, hi := bounds[i], bounds[i+1]
		if lo == hi {
			continue
		}
		for next < len(byStart) && entries[byStart[next]].start <= lo {
			heap.Push(live, byStart[next])
			next++
		}
		// Entries that ended drop out lazily, when they reach the top.
		for live.Len() > 0 && entries[live.idx[0]].end <= lo {
			heap.Pop(live)
		}
		if live.Len() == 0 {
			continue
		}
		top := live.idx[0]
		if n := len(segs); n > 0 && segs[n-1].entry == top && segs[n-1].end == lo {
			segs[n-1].end = hi
			continue
		}
		segs = append(segs, perfSegment{start: lo, end: hi, entry: top})
	}
	return segs
}

// latestFirst is a max-heap of entry indexes by line order.
type latestFirst struct {
	entries []perfEntry
	idx     []int
}

func (h *latestFirst) Len() int           { return len(h.idx) }
func (h *latestFirst) Less(a, b int) bool { return h.entries[h.idx[a]].seq > h.entries[h.idx[b]].seq }
func (h *latestFirst) Swap(a, b int)      { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *latestFirst) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *latestFirst) Pop() any {
	n := len(h.idx)
	x := h.idx[n-1]
	h.idx = h.idx[:n-1]
	return x
}

// lookup returns the entry covering addr; the latest line wins.
func (pm *perfMap) lookup(addr uint64) (perfEntry, bool) {
	if pm == nil {
		return perfEntry{}, false
	}
	i := sort.Search(len(pm.segments), func(i int) bool { return pm.segments[i].end > addr })
	if i == len(pm.segments) || addr < pm.segments[i].start {
		return perfEntry{}, false
	}
	return pm.entries[pm.segments[i].entry], true
}

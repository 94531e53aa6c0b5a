package analyze

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// A perf map (/tmp/perf-PID.map, written by JITs for perf(1)) names
// generated code: one "START SIZE NAME" line per symbol, START and SIZE in
// hex (an optional 0x prefix is accepted). Later lines win where entries
// overlap, as in perf: a JIT that recompiles code appends the new name.

// Bounds: a map of a long-running JIT can be large, but not unbounded.
const (
	maxPerfMapLines = 1 << 22
	maxPerfMapLine  = 1 << 16
	// maxPerfOverlap bounds how many entries starting below an address a
	// lookup examines: maps of recompiling JITs overlap, but not deeply.
	maxPerfOverlap = 64
)

type perfEntry struct {
	start, end uint64
	name       string
	seq        int // line order, for "later wins"
}

type perfMap struct {
	entries []perfEntry // sorted by start
	maxLen  uint64
	skipped int // malformed lines
}

func readPerfMapFile(path string) (*perfMap, error) {
	f, err := os.Open(path)
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
	sc.Buffer(make([]byte, 4096), maxPerfMapLine)
	for n := 0; sc.Scan(); n++ {
		if n >= maxPerfMapLines {
			return pm, fmt.Errorf("more than %d lines", maxPerfMapLines)
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		e, ok := parsePerfLine(line)
		if !ok {
			pm.skipped++
			continue
		}
		e.seq = n
		pm.entries = append(pm.entries, e)
		pm.maxLen = max(pm.maxLen, e.end-e.start)
	}
	if err := sc.Err(); err != nil {
		return pm, err
	}
	sort.SliceStable(pm.entries, func(i, j int) bool { return pm.entries[i].start < pm.entries[j].start })
	return pm, nil
}

func parsePerfLine(line string) (perfEntry, bool) {
	startS, rest, ok1 := strings.Cut(line, " ")
	sizeS, name, ok2 := strings.Cut(strings.TrimLeft(rest, " "), " ")
	if !ok1 || !ok2 {
		return perfEntry{}, false
	}
	start, err1 := strconv.ParseUint(strings.TrimPrefix(startS, "0x"), 16, 64)
	size, err2 := strconv.ParseUint(strings.TrimPrefix(sizeS, "0x"), 16, 64)
	name = strings.TrimSpace(name)
	if err1 != nil || err2 != nil || size == 0 || start+size < start || name == "" {
		return perfEntry{}, false
	}
	return perfEntry{start: start, end: start + size, name: name}, true
}

// lookup returns the entry covering addr; the latest line wins.
func (pm *perfMap) lookup(addr uint64) (perfEntry, bool) {
	if pm == nil {
		return perfEntry{}, false
	}
	k := sort.Search(len(pm.entries), func(i int) bool { return pm.entries[i].start > addr })
	best := -1
	for j := k - 1; j >= 0 && j >= k-maxPerfOverlap && addr-pm.entries[j].start < pm.maxLen; j-- {
		e := &pm.entries[j]
		if addr < e.end && (best < 0 || e.seq > pm.entries[best].seq) {
			best = j
		}
	}
	if best < 0 {
		return perfEntry{}, false
	}
	return pm.entries[best], true
}

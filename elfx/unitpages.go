package elfx

import (
	"cmp"
	"slices"
	"sync"
)

// An uncompressed .debug_info is read through the object's file
// mapping, and the kernel maps 64 KB around each page a read faults in
// (fault-around). LTO's early-debug units are read at their heads by
// the walk over the units .debug_aranges leaves out (unlisted.go), and
// at their heads and along the path to a DIE by the origin readers
// (originreader.go): in gen-lto's report that mapped 21 MB of its 330
// early-debug units, which stayed resident to the end (its peak RSS was
// 72 MB beside eu-stack's 60). Those units have no code and are never
// opened: once read, their pages are given back, a few units at a time
// (a unit read again soon is still there); a later read faults them in
// again from the page cache, with the same bytes (the mapping is
// private and never written). Opened units keep theirs.

// unitPages holds the units read and not given back yet.
type unitPages struct {
	mu      sync.Mutex
	pending []pendingUnit
	bytes   uint64
}

// pendingUnit is a unit read, [cu.off, end) of .debug_info.
type pendingUnit struct {
	cu  *cuIndex
	end uint64
}

// unitPagesBatch is how many bytes of units wait to be given back
// together: one madvise each time, not one per read (gen-lto reads
// its early-debug units ~700 times).
const unitPagesBatch = 2 << 20

// giveBackUnit gives back, with the next batch, the whole pages of the
// unit cu at [cu.off, end) of .debug_info where that is the object's
// file mapping (a compressed section's buffer is the stream's to
// manage) and the unit is not opened by then.
func (l *lazyDWARF) giveBackUnit(cu *cuIndex, end uint64) {
	if l.release == nil || l.info.raw != nil || uint64(cu.off) >= end || end > uint64(len(l.info.buf)) {
		return
	}
	p := &l.pages
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = append(p.pending, pendingUnit{cu, end})
	p.bytes += end - uint64(cu.off)
	if p.bytes < unitPagesBatch {
		return
	}
	l.releaseRuns(p.pending)
	p.pending, p.bytes = p.pending[:0], 0
}

// releaseRuns gives back the units of pending not opened, one madvise
// for each run of them that lie end to end: each call flushes the TLB of
// every CPU running one of the process's threads (an interrupt each),
// and the walk over unlisted units queues hundreds of neighbours (gen-lto's
// report: 4% of its CPU in those flushes, one call per unit).
func (l *lazyDWARF) releaseRuns(pending []pendingUnit) {
	slices.SortFunc(pending, func(a, b pendingUnit) int { return cmp.Compare(a.cu.off, b.cu.off) })
	lo, hi := uint64(0), uint64(0) // the run so far, empty when lo == hi
	for _, u := range pending {
		if u.cu.opened.Load() {
			continue
		}
		off := uint64(u.cu.off)
		if lo < hi && off <= hi {
			hi = max(hi, u.end)
			continue
		}
		if lo < hi {
			l.release(l.info.buf[lo:hi])
		}
		lo, hi = off, u.end
	}
	if lo < hi {
		l.release(l.info.buf[lo:hi])
	}
}

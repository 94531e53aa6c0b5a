package elfx

import (
	"runtime"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// Inflating a compressed debug file's sections is most of a cold
// report's time where one is installed (glibc's 5.8 MB .debug_info,
// python3.11-dbg's 11 MB), and a deflate stream inflates on one CPU.
// What can go on beside it is everything else: the other sections'
// streams, and reading the units already inflated. So once a lookup
// batch knows which units it will read (preload), goroutines inflate
// ahead of it what those units need of each compressed stream, in the
// order the lookups will ask for it: .debug_info and .debug_abbrev
// through each unit and its abbreviations, .debug_line through each
// unit's line program (its offset read from the unit's top DIE). The
// lookups then find the bytes inflated, or wait for the goroutine
// inflating them (sectionStream.ensure). The unlisted walk, which reads
// every unit header, abbreviation table and (LTO's early-debug units)
// line program header, has the three inflated whole beside it.
//
// Nothing is inflated that the lookups would not inflate themselves, in
// the same order, so what the streams keep and give back is the same:
// a prefetch stops after a unit whose DIEs may refer to other units
// (LTO, dwz), where the lookups' own order decides what is given back,
// unless the streams keep everything already (the unlisted walk). A
// batch (triage) runs reports in parallel already and prefetches
// nothing.

// prefetchSlots bounds the lookup batches of the process that prefetch
// at the same time: one per CPU the runtime uses. A batch prefetches
// with up to one goroutine per stream; one that finds no slot free
// inflates what it reads itself, as without a prefetch.
var prefetchSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// prefetcher is the prefetch of one lookup batch: its goroutines stop
// once the batch is done (its lookups have inflated the rest
// themselves).
type prefetcher struct {
	g    mapfault.Group
	stop chan struct{}
	// tried: a slot was asked for (by the first run); slot: and taken.
	tried, slot bool
}

func newPrefetcher() *prefetcher {
	return &prefetcher{stop: make(chan struct{})}
}

// run runs f on a goroutine of the prefetch, if the prefetch has a
// slot. A panic in f other than a fault on a mapped file (which wait
// raises again) ends it only: the lookups meet the same damage and say
// what it is. Only the goroutine that made p calls run.
func (p *prefetcher) run(f func()) {
	if !p.tried {
		p.tried = true
		select {
		case prefetchSlots <- struct{}{}:
			p.slot = true
		default:
		}
	}
	if !p.slot {
		return
	}
	p.g.Go(func() {
		defer func() {
			if r := recover(); r != nil {
				mapfault.Reraise(r)
			}
		}()
		f()
	})
}

// stopped reports whether the batch is done.
func (p *prefetcher) stopped() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

// wait ends the prefetch: what it has not inflated yet the lookups no
// longer need. It raises a fault one of its goroutines met.
func (p *prefetcher) wait() {
	close(p.stop)
	defer func() {
		if p.slot {
			<-prefetchSlots
		}
	}()
	p.g.Wait()
}

// startPrefetch starts inflating what a lookup batch at addrs needs of
// the compressed streams: the units that cover them or, where one lies
// outside them all, the whole of each stream for the unlisted walk
// (which keeps what it inflates).
func (x *dwarfIndex) startPrefetch(addrs []uint64) *prefetcher {
	p := newPrefetcher()
	l := x.lazy
	cus, walk := x.unitsAt(addrs)
	if walk {
		l.keepForWalk()
		l.prefetchWhole(p, l.info, l.abbrev, l.line)
	} else {
		l.prefetchUnits(p, cus)
	}
	return p
}

// endEarlyPrefetch ends the prefetch the index started when it was
// built, if no preload has taken it over (x may be nil).
func (x *dwarfIndex) endEarlyPrefetch() {
	if x == nil || x.lazy == nil {
		return
	}
	if p := x.lazy.early.Swap(nil); p != nil {
		p.wait()
	}
}

// prefetchUnits starts inflating what reading cus (sorted by offset)
// needs of the compressed streams. The caller reads the units, then
// waits for p.
func (l *lazyDWARF) prefetchUnits(p *prefetcher, cus []*cuIndex) {
	if !l.prefetch || len(cus) == 0 || l.info.raw == nil && l.abbrev.raw == nil && l.line.raw == nil {
		return
	}
	lines := make(chan int64, len(cus)) // never full: one offset a unit
	p.run(func() {
		defer close(lines)
		for _, cu := range cus {
			if p.stopped() {
				return
			}
			off := uint64(cu.off)
			h, err := l.readUnitHeader(off)
			if err != nil {
				return
			}
			code, _ := l.topCode(h)
			t, err := l.ensureAbbrevs(h.abbrevOff, code)
			if err != nil {
				return
			}
			l.prefetched.Add(1)
			if top, ok := l.readUnitTop(off); ok && top.hasStmt {
				lines <- top.stmtList
			}
			if (!t.ok || len(t.refAddr) > 0) && !(l.info.keeps() && l.line.keeps()) {
				// Its DIEs may refer to units the prefetch would
				// skip past and the streams give back.
				return
			}
		}
	})
	if l.line.raw == nil || !p.slot {
		return
	}
	p.run(func() {
		for off := range lines {
			if p.stopped() {
				return
			}
			l.ensureLinesAt(off)
		}
	})
}

// prefetchStep is how much of a stream prefetchWhole inflates between
// looks at whether the batch is done.
const prefetchStep = 1 << 20

// prefetchWhole starts inflating the whole of each compressed stream of
// streams that keeps what it inflates (a prefetch from the start of one
// that gives pages back would inflate again what it gave), unless a
// prefetch has done so before (the index's first batch, then its
// unlisted walk).
func (l *lazyDWARF) prefetchWhole(p *prefetcher, streams ...*sectionStream) {
	if !l.prefetch {
		return
	}
	for _, st := range streams {
		if st.raw == nil || !st.keeps() {
			continue
		}
		p.run(func() {
			if !st.claimWhole() {
				return
			}
			st.adviseHugePages() // kept whole: hugepages.go
			l.prefetched.Add(1)
			for end := prefetchStep; !p.stopped(); end += prefetchStep {
				if _, err := st.ensure(0, uint64(min(end, len(st.buf)))); err != nil || end >= len(st.buf) {
					return
				}
			}
		})
	}
}

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
// every unit header and abbreviation table, has .debug_info and
// .debug_abbrev inflated whole beside it.
//
// Nothing is inflated that the lookups would not inflate themselves, in
// the same order, so what the streams keep and give back is the same:
// a prefetch stops after a unit whose DIEs may refer to other units
// (LTO, dwz), where the lookups' own order decides what is given back,
// unless the streams keep everything already (the unlisted walk). A batch (triage)
// runs reports in parallel already and prefetches nothing.

// prefetchSlots bounds the prefetching goroutines of the process: one
// per CPU the runtime uses, beside the lookups' own goroutines.
var prefetchSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// goPrefetch runs f on a goroutine of g if a prefetch slot is free, and
// reports whether it does. A panic in f other than a fault on a mapped
// file (which g raises again in Wait) ends the prefetch only: the
// lookups meet the same damage and say what it is.
func goPrefetch(g *mapfault.Group, f func()) bool {
	select {
	case prefetchSlots <- struct{}{}:
	default:
		return false
	}
	g.Go(func() {
		defer func() { <-prefetchSlots }()
		defer func() {
			if p := recover(); p != nil {
				mapfault.Reraise(p)
			}
		}()
		f()
	})
	return true
}

// prefetchUnits starts inflating, on goroutines of g, what reading cus
// (sorted by offset) needs of the compressed streams. The caller reads
// the units, then waits for g.
func (l *lazyDWARF) prefetchUnits(g *mapfault.Group, cus []*cuIndex) {
	if !l.prefetch || len(cus) == 0 || l.info.raw == nil && l.abbrev.raw == nil && l.line.raw == nil {
		return
	}
	lines := make(chan int64, len(cus)) // never full: one offset a unit
	if !goPrefetch(g, func() {
		defer close(lines)
		for _, cu := range cus {
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
			if (!t.ok || len(t.refAddr) > 0) && !(l.info.keeps() && l.line.keeps()) {
				// Its DIEs may refer to units the prefetch would
				// skip past and the streams give back.
				return
			}
			l.prefetched.Add(1)
			if top, ok := l.readUnitTop(off); ok && top.hasStmt {
				lines <- top.stmtList
			}
		}
	}) {
		return
	}
	if l.line.raw != nil {
		goPrefetch(g, func() {
			for off := range lines {
				l.ensureLinesAt(off)
			}
		})
	}
}

// prefetchWhole starts inflating the whole of each compressed stream of
// streams on a goroutine of g.
func (l *lazyDWARF) prefetchWhole(g *mapfault.Group, streams ...*sectionStream) {
	if !l.prefetch {
		return
	}
	for _, st := range streams {
		if st.raw != nil {
			goPrefetch(g, func() { st.all() })
		}
	}
}

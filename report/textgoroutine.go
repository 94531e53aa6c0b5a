package report

import (
	"bufio"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// writeGoroutines writes a Go program's goroutines as the runtime's
// traceback does, the crashed one first; goroutines with the same stack
// print once, under one header naming them, as panicparse groups them
// (see groupGoroutines), unless o.NoGroup.
func writeGoroutines(w *bufio.Writer, gs []Goroutine, o TextOptions) {
	for _, group := range groupGoroutines(gs, o.NoGroup) {
		writeGoroutine(w, gs, group, o)
	}
}

// writeGoroutine writes one goroutine (or a group with the same stack)
// as the Go runtime's traceback does, so that people and tools that read
// Go tracebacks read it:
//
//	goroutine 7 [chan receive, 3 minutes]:
//	main.worker(...)
//		/src/main.go:12 +0x1d
//	created by main.main in goroutine 1
//		/src/main.go:30 +0x45
//
// Arguments are not known: every call prints "(...)". Inlined calls have
// no offset, as in the runtime's own output.
func writeGoroutine(w *bufio.Writer, gs []Goroutine, group []int, o TextOptions) {
	g := &gs[group[0]]
	w.WriteString("\n")
	if len(group) > 1 {
		ids := make([]uint64, len(group))
		for k, i := range group {
			ids[k] = gs[i].ID
		}
		slices.Sort(ids)
		fmt.Fprintf(w, "%d goroutines (%s) [%s]", len(group), idList(ids), goroutineBracket(gs, group))
	} else {
		fmt.Fprintf(w, "goroutine %d [%s]", g.ID, goroutineBracket(gs, group))
		if g.TID != nil {
			fmt.Fprintf(w, " (thread %d)", *g.TID)
		} else if g.LockedTID != nil {
			fmt.Fprintf(w, " (locked to thread %d)", *g.LockedTID)
		}
		if g.Crashed {
			w.WriteString(" (crashed)")
		}
	}
	w.WriteString(":\n")
	for i := range g.Frames {
		f := &g.Frames[i]
		if f.Signal {
			w.WriteString("<signal handler called>\n")
			continue
		}
		if !o.GoWrappers && elidedWrapper(g.Frames, i) {
			continue
		}
		fn := "?"
		if f.Function != nil {
			fn = *f.Function
		}
		fmt.Fprintf(w, "%s(...)\n", Printable(fn))
		file, line := "?", 0
		if f.File != nil && f.Line != nil {
			file, line = *f.File, *f.Line
		}
		fmt.Fprintf(w, "\t%s:%d", Printable(file), line)
		if f.FunctionOffset != nil && !f.Inlined {
			fmt.Fprintf(w, " +0x%x", uint64(*f.FunctionOffset))
		}
		w.WriteString("\n")
	}
	if c := g.CreatedBy; c != nil {
		fmt.Fprintf(w, "created by %s", Printable(c.Function))
		if c.Goroutine != nil {
			fmt.Fprintf(w, " in goroutine %d", *c.Goroutine)
		}
		file, line := "?", 0
		if c.File != nil && c.Line != nil {
			file, line = *c.File, *c.Line
		}
		fmt.Fprintf(w, "\n\t%s:%d", Printable(file), line)
		if c.FunctionOffset != nil && *c.FunctionOffset != 0 {
			fmt.Fprintf(w, " +0x%x", uint64(*c.FunctionOffset))
		}
		w.WriteString("\n")
	}
	if g.Error != nil {
		fmt.Fprintf(w, "Backtrace stopped: %s\n", Printable(*g.Error))
	}
}

// goroutineBracket is what the runtime prints in brackets after a
// goroutine's id: its state, how long it has waited ("3 minutes"; for
// a group the range, "1~3 minutes", as panicparse prints it), "locked
// to thread", and its labels as Go 1.26 prints them with
// GODEBUG=tracebacklabels=1.
func goroutineBracket(gs []Goroutine, group []int) string {
	g := &gs[group[0]]
	var b strings.Builder
	b.WriteString(Printable(g.State))
	lo, hi := int64(-1), int64(-1)
	for _, i := range group {
		if m := gs[i].WaitMinutes; m != nil && *m >= 1 {
			if lo < 0 || *m < lo {
				lo = *m
			}
			hi = max(hi, *m)
		}
	}
	switch {
	case lo < 0:
	case lo == hi:
		fmt.Fprintf(&b, ", %d minutes", lo)
	default:
		fmt.Fprintf(&b, ", %d~%d minutes", lo, hi)
	}
	if g.LockedToThread {
		b.WriteString(", locked to thread")
	}
	if len(g.Labels) > 0 {
		b.WriteString(" labels:{")
		for k, key := range slices.Sorted(maps.Keys(g.Labels)) {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(Printable(strconv.Quote(key)) + ": " + Printable(strconv.Quote(g.Labels[key])))
		}
		b.WriteString("}")
	}
	return b.String()
}

// idList lists ids as a group's header does: the first maxGroupIDs,
// then "...".
func idList(ids []uint64) string {
	var b strings.Builder
	for k, id := range ids {
		if k == maxGroupIDs {
			b.WriteString(", ...")
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatUint(id, 10))
	}
	return b.String()
}

// groupGoroutines groups goroutines as groupThreads groups threads:
// the same frames, stopped the same way, in the same state (however
// long each has waited), locked or not, with the same labels and
// created by the same statement. A panicking goroutine is never
// grouped; the crashed one is first.
func groupGoroutines(gs []Goroutine, noGroup bool) [][]int {
	return groupStacks(len(gs), noGroup,
		func(i int) bool { return gs[i].Crashed },
		func(i int) []Frame { return gs[i].Frames },
		func(i, j int) bool { return sameGoroutine(&gs[i], &gs[j]) })
}

// sameGoroutine says whether a and b print as one group.
func sameGoroutine(a, b *Goroutine) bool {
	if a.State != b.State || a.LockedToThread != b.LockedToThread || a.TID != nil || b.TID != nil ||
		a.Panics != nil || b.Panics != nil || !samePtr(a.Error, b.Error) || !maps.Equal(a.Labels, b.Labels) ||
		!sameCreator(a.CreatedBy, b.CreatedBy) || len(a.Frames) != len(b.Frames) {
		return false
	}
	for i := range a.Frames {
		if !sameFrame(&a.Frames[i], &b.Frames[i]) {
			return false
		}
	}
	return true
}

// sameCreator says whether two goroutines were created by the same go
// statement (perhaps run by different goroutines).
func sameCreator(a, b *GoCreator) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.PC == b.PC && a.Function == b.Function
}

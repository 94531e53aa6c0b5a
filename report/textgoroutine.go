package report

import (
	"bufio"
	"fmt"
)

// writeGoroutine writes one goroutine as the Go runtime's traceback
// does, so that people and tools that read Go tracebacks read it:
//
//	goroutine 7 [chan receive]:
//	main.worker(...)
//		/src/main.go:12 +0x1d
//
// Arguments are not known: every call prints "(...)". Inlined calls have
// no offset, as in the runtime's own output.
func writeGoroutine(w *bufio.Writer, g *Goroutine) {
	fmt.Fprintf(w, "\ngoroutine %d [%s]", g.ID, g.State)
	if g.TID != nil {
		fmt.Fprintf(w, " (thread %d)", *g.TID)
	}
	if g.Crashed {
		w.WriteString(" (crashed)")
	}
	w.WriteString(":\n")
	for i := range g.Frames {
		f := &g.Frames[i]
		if f.Signal {
			w.WriteString("<signal handler called>\n")
			continue
		}
		fn := "?"
		if f.Function != nil {
			fn = *f.Function
		}
		fmt.Fprintf(w, "%s(...)\n", fn)
		file, line := "?", 0
		if f.File != nil && f.Line != nil {
			file, line = *f.File, *f.Line
		}
		fmt.Fprintf(w, "\t%s:%d", file, line)
		if f.FunctionOffset != nil && !f.Inlined {
			fmt.Fprintf(w, " +0x%x", uint64(*f.FunctionOffset))
		}
		w.WriteString("\n")
	}
	if g.Error != nil {
		fmt.Fprintf(w, "Backtrace stopped: %s\n", *g.Error)
	}
}

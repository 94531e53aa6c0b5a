package analyze

import (
	"strings"

	"github.com/coreunwind/coreunwind/goruntime"
	"github.com/coreunwind/coreunwind/report"
)

// goCrashLine makes the runtime's last words the report's crash line: a
// fatal error's "fatal error: MSG" (the message runtime.throw or
// runtime.fatal printed, read from their frame on the crashed thread or
// goroutine), else the crashed goroutine's panics as printpanics
// prints them. The signal's own summary becomes the first detail. Left
// alone when the program is not Go, did not crash, or neither is read.
func goCrashLine(p *goProgram, t *target, r *report.Report) {
	if p == nil || r.Crash == nil {
		return
	}
	var crashedG *report.Goroutine
	if len(r.Goroutines) > 0 && r.Goroutines[0].Crashed {
		crashedG = &r.Goroutines[0]
	}
	summary, kind := "", ""
	if msg, ok := fatalMessage(p.reader, t, r, crashedG); ok {
		summary, kind = "fatal error: "+indentLines(msg), report.KindGoFatalError
	} else if crashedG != nil && len(crashedG.Panics) > 0 {
		summary, kind = PanicsText(crashedG.Panics), report.KindGoPanic
	}
	if summary == "" {
		return
	}
	r.Crash.Details = append([]string{r.Crash.Summary}, r.Crash.Details...)
	r.Crash.Summary, r.Crash.Kind = summary, kind
}

// fatalMessage finds the frame of runtime.throw or runtime.fatal on the
// crashed thread (or, its walk stopping at a stack switch, the crashed
// goroutine) and reads the message from it.
func fatalMessage(rd *goruntime.Reader, t *target, r *report.Report, g *report.Goroutine) (string, bool) {
	var stacks [][]report.Frame
	for i := range r.Threads {
		if r.Threads[i].Crashed {
			stacks = append(stacks, r.Threads[i].Frames)
		}
	}
	if g != nil {
		stacks = append(stacks, g.Frames)
	}
	for _, frames := range stacks {
		for i := range frames {
			f := &frames[i]
			if f.Function == nil || f.Inlined || f.SP == nil || f.CFA == nil ||
				*f.Function != "runtime.throw" && *f.Function != "runtime.fatal" {
				continue
			}
			if msg, ok := rd.FatalMessage(t, uint64(*f.SP), uint64(*f.CFA)); ok {
				return msg, true
			}
		}
	}
	return "", false
}

// PanicsText is a goroutine's chain of panics as the runtime's
// printpanics prints it: the oldest first, each "panic: VALUE" with
// " [recovered]" (" [recovered, repanicked]") where it was, the later
// ones after a newline and a tab; a panic whose value its predecessor
// re-raised is not printed twice, a Goexit not at all.
func PanicsText(ps []report.GoPanic) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			if ps[i-1].Repanicked {
				continue
			}
			if !ps[i-1].Goexit {
				b.WriteString("\n\t")
			}
		}
		if p.Goexit {
			continue
		}
		b.WriteString("panic: " + indentLines(p.Value))
		switch {
		case p.Recovered && p.Repanicked:
			b.WriteString(" [recovered, repanicked]")
		case p.Recovered:
			b.WriteString(" [recovered]")
		}
	}
	return b.String()
}

// indentLines is s as the runtime's printindented prints it: a tab
// after each newline.
func indentLines(s string) string {
	return strings.ReplaceAll(s, "\n", "\n\t")
}

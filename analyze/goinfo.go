package analyze

import (
	"github.com/coreunwind/coreunwind/goruntime"
	"github.com/coreunwind/coreunwind/report"
)

// goroutineInfo fills in what the runtime records of a goroutine beyond
// its stack: how long it has waited (now is goruntime.Reader.Now's), the
// thread it is locked to, its pprof labels and its panics. Its creator
// needs the symbolizer: see creator.
func goroutineInfo(r *goruntime.Reader, t *target, g *goruntime.Goroutine, now int64, rg *report.Goroutine) {
	if m, ok := goruntime.WaitMinutes(g, now); ok {
		rg.WaitMinutes = &m
	}
	if g.LockedM != 0 {
		rg.LockedToThread = true
		if tid, ok := r.ThreadID(t, g.LockedM); ok {
			rg.LockedTID = report.Ptr(int(tid))
		}
	}
	if labels := r.Labels(t, g); labels != nil {
		rg.Labels = make(map[string]string, len(labels))
		for _, l := range labels {
			rg.Labels[l.Key] = l.Value
		}
	}
	for _, p := range r.Panics(t, g) {
		rg.Panics = append(rg.Panics, report.GoPanic{Value: p.Value, Type: p.Type, Recovered: p.Recovered, Repanicked: p.Repanicked, Goexit: p.Goexit})
	}
}

// creator is the go statement that created a goroutine, as the
// runtime's traceback prints it: the function that ran it (the
// physical one, into which it may have been inlined), the file and line
// of the call (the innermost inlined position of the instruction before
// the return address gopc) and gopc's offset in the function. nil for
// the main goroutine, which no go statement created.
func (s *symbolizer) creator(th *threadNamer, id, gopc, parent uint64) *report.GoCreator {
	if gopc == 0 || id == 1 {
		return nil
	}
	c := &report.GoCreator{PC: report.Hex(gopc)}
	if parent != 0 {
		c.Goroutine = &parent
	}
	fs := th.lookup(s, gopc-1, gopc)
	if len(fs) == 0 || fs[len(fs)-1].Function == nil {
		return nil
	}
	outer := &fs[len(fs)-1]
	c.Function, c.FunctionOffset = *outer.Function, outer.FunctionOffset
	c.File, c.Line = fs[0].File, fs[0].Line
	return c
}

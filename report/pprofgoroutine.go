package report

import (
	"io"
	"maps"
	"slices"
)

// SampleGoroutines is the sample type of a Go program's goroutine
// profile, as runtime/pprof names it.
const SampleGoroutines = "goroutine"

// AddGoroutines adds one sample per goroutine of r: its stack, leaf
// first, without the wrappers the runtime leaves out (withoutWrappers),
// and its pprof labels as the sample's labels, as runtime/pprof's
// goroutine profile of a live program has them, plus opts.Labels. A
// report of a program that is not Go adds nothing.
func (b *ProfileBuilder) AddGoroutines(r *Report, opts AddOptions) {
	mods := make([]*pprofMapping, len(r.Modules))
	for i := range r.Modules {
		mods[i] = b.mapping(&r.Modules[i])
	}
	for gi := range r.Goroutines {
		g := &r.Goroutines[gi]
		if opts.CrashedOnly && !g.Crashed {
			continue
		}
		labels := maps.Clone(g.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, opts.Labels)
		var s pprofSample
		for _, k := range slices.Sorted(maps.Keys(labels)) {
			s.labels = append(s.labels, pprofLabel{key: k, str: labels[k]})
		}
		s.locations = b.stackLocations(r, mods, withoutWrappers(g.Frames))
		b.samples = append(b.samples, s)
	}
}

// WritePprofGoroutines writes the goroutines of the reports as one
// gzipped goroutine profile. With several reports each sample has a
// "core" label (the core's path).
func WritePprofGoroutines(w io.Writer, reps []*Report) error {
	b := NewProfileBuilder(SampleGoroutines)
	for _, r := range reps {
		var opts AddOptions
		if len(reps) > 1 {
			opts.Labels = map[string]string{"core": r.Core.Path}
		}
		b.AddGoroutines(r, opts)
	}
	return b.Write(w)
}

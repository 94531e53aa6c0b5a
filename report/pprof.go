package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/google/pprof/profile"
)

// pprof output: one sample per thread, so `go tool pprof -top` counts
// threads per function and `-traces` prints every stack. Frames become
// locations in mappings (the modules, with build IDs, so pprof never tries
// to re-symbolize them); inlined calls are extra lines of one location,
// innermost first, as pprof expects.

// Sample types: a profile of the threads of some cores, and triage's
// profile of crashing threads. profile.Merge needs identical sample types,
// so the two are kept apart on purpose.
const (
	SampleThreads = "threads"
	SampleCrashes = "crashes"
)

// ProfileBuilder turns reports into one pprof profile. Mappings,
// functions and locations are shared between the reports added, so a
// batch of cores of one program yields one function table. Not safe for
// concurrent use.
type ProfileBuilder struct {
	p         *profile.Profile
	mappings  map[mappingKey]*profile.Mapping
	functions map[functionKey]*profile.Function
	locations map[locationKey]*profile.Location
}

type mappingKey struct {
	file, buildID        string
	start, limit, offset uint64
}

type functionKey struct{ name, file string }

type locationKey struct {
	mapping uint64
	address uint64
	lines   string // the symbolic lines, in case one address was symbolized two ways
}

// NewProfileBuilder starts a profile whose samples count sampleType
// (SampleThreads or SampleCrashes), one per thread.
func NewProfileBuilder(sampleType string) *ProfileBuilder {
	vt := &profile.ValueType{Type: sampleType, Unit: "count"}
	return &ProfileBuilder{
		p: &profile.Profile{
			SampleType:        []*profile.ValueType{vt},
			PeriodType:        &profile.ValueType{Type: sampleType, Unit: "count"},
			Period:            1,
			DefaultSampleType: sampleType,
		},
		mappings:  map[mappingKey]*profile.Mapping{},
		functions: map[functionKey]*profile.Function{},
		locations: map[locationKey]*profile.Location{},
	}
}

// AddOptions select the threads of a report and label its samples.
type AddOptions struct {
	CrashedOnly bool              // only the crashing thread
	Labels      map[string]string // extra labels on every sample (core, bucket)
}

// Add adds one sample per thread of r. Each sample has the labels
// "tid" (numeric, unit "id"), "thread" (the thread's name, when known),
// "crashed" ("true"/"false"), "signal" (on the crashing thread) and
// "unwind_error" (when unwinding stopped early), plus opts.Labels.
func (b *ProfileBuilder) Add(r *Report, opts AddOptions) {
	mods := make([]*profile.Mapping, len(r.Modules))
	for i := range r.Modules {
		mods[i] = b.mapping(&r.Modules[i])
	}
	for ti := range r.Threads {
		t := &r.Threads[ti]
		if opts.CrashedOnly && !t.Crashed {
			continue
		}
		s := &profile.Sample{
			Value:    []int64{1},
			Label:    map[string][]string{"crashed": {strconv.FormatBool(t.Crashed)}},
			NumLabel: map[string][]int64{"tid": {int64(t.TID)}},
			NumUnit:  map[string][]string{"tid": {"id"}},
		}
		if t.Name != nil {
			s.Label["thread"] = []string{*t.Name}
		}
		if t.Crashed && r.Core.Signal != nil {
			s.Label["signal"] = []string{r.Core.Signal.Name}
		}
		if t.Error != nil {
			s.Label["unwind_error"] = []string{*t.Error}
		}
		for k, v := range opts.Labels {
			s.Label[k] = []string{v}
		}
		for start := 0; start < len(t.Frames); {
			end := start
			for end < len(t.Frames)-1 && t.Frames[end].Inlined {
				end++
			}
			s.Location = append(s.Location, b.location(r, mods, t.Frames[start:end+1]))
			start = end + 1
		}
		b.p.Sample = append(b.p.Sample, s)
	}
}

// Profile returns the profile built so far, checked with CheckValid.
func (b *ProfileBuilder) Profile() (*profile.Profile, error) {
	if err := b.p.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof: invalid profile: %w", err)
	}
	return b.p, nil
}

// WritePprof writes the threads of the reports as one gzipped
// profile.proto. With several reports each sample has a "core" label (the
// core's path).
func WritePprof(w io.Writer, reps []*Report) error {
	b := NewProfileBuilder(SampleThreads)
	for _, r := range reps {
		var opts AddOptions
		if len(reps) > 1 {
			opts.Labels = map[string]string{"core": r.Core.Path}
		}
		b.Add(r, opts)
	}
	p, err := b.Profile()
	if err != nil {
		return err
	}
	return p.Write(w)
}

func (b *ProfileBuilder) mapping(m *Module) *profile.Mapping {
	k := mappingKey{file: m.Path, start: uint64(m.Start), limit: uint64(m.End), offset: uint64(m.FileOffset)}
	if m.BuildID != nil {
		k.buildID = *m.BuildID
	}
	if pm, ok := b.mappings[k]; ok {
		return pm
	}
	pm := &profile.Mapping{
		ID:    uint64(len(b.p.Mapping) + 1),
		Start: k.start, Limit: k.limit, Offset: k.offset,
		File: k.file, BuildID: k.buildID,
		// Symbolized here or not at all: pprof must not look for the
		// files on its own machine.
		HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true,
	}
	b.mappings[k] = pm
	b.p.Mapping = append(b.p.Mapping, pm)
	return pm
}

// location returns the location of one physical frame: its inlined calls
// (innermost first) and the function they were inlined into, last.
func (b *ProfileBuilder) location(r *Report, mods []*profile.Mapping, frames []Frame) *profile.Location {
	outer := &frames[len(frames)-1]
	addr := uint64(outer.PC)
	// A caller frame's pc is a return address; the call is the
	// instruction before it. Exact PCs (frame 0, a frame interrupted by
	// a signal) are the instruction itself.
	if !outer.ExactPC && addr > 0 {
		addr--
	}
	var m *profile.Mapping
	for i := range r.Modules {
		if uint64(outer.PC) >= uint64(r.Modules[i].Start) && uint64(outer.PC) < uint64(r.Modules[i].End) {
			m = mods[i]
			break
		}
	}
	var lines []profile.Line
	key := ""
	for i := range frames {
		f := &frames[i]
		if f.Function == nil {
			continue
		}
		fn := b.function(*f.Function, deref(f.File))
		ln := profile.Line{Function: fn}
		if f.Line != nil {
			ln.Line = int64(*f.Line)
		}
		if f.Column != nil {
			ln.Column = int64(*f.Column)
		}
		lines = append(lines, ln)
		key += fmt.Sprintf("%d:%d:%d;", fn.ID, ln.Line, ln.Column)
	}
	k := locationKey{address: addr, lines: key}
	if m != nil {
		k.mapping = m.ID
	}
	if loc, ok := b.locations[k]; ok {
		return loc
	}
	loc := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: m, Address: addr, Line: lines}
	b.locations[k] = loc
	b.p.Location = append(b.p.Location, loc)
	return loc
}

func (b *ProfileBuilder) function(name, file string) *profile.Function {
	k := functionKey{name, file}
	if fn, ok := b.functions[k]; ok {
		return fn
	}
	// Reports carry demangled names only; the mangled one is not kept.
	fn := &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name, Filename: file}
	b.functions[k] = fn
	b.p.Function = append(b.p.Function, fn)
	return fn
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

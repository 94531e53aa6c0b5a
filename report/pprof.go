package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
)

// pprof output: one sample per thread, so `go tool pprof -top` counts
// threads per function and `-traces` prints every stack. Frames become
// locations in mappings (the modules, with build IDs, so pprof never tries
// to re-symbolize them); inlined calls are extra lines of one location,
// innermost first, as pprof expects. The profile is encoded by
// pprofenc.go, not by github.com/google/pprof/profile: that package
// compiles a dozen regexps when the program starts (0.8M instructions,
// more than half of libunwind's whole run on a small core), whatever the
// output format.

// Sample types: a profile of the threads of some cores, and triage's
// profile of crashing threads. pprof's merge needs identical sample
// types, so the two are kept apart on purpose.
const (
	SampleThreads = "threads"
	SampleCrashes = "crashes"
)

// ProfileBuilder turns reports into one pprof profile. Mappings,
// functions and locations are shared between the reports added, so a
// batch of cores of one program yields one function table. Not safe for
// concurrent use.
type ProfileBuilder struct {
	sampleType string
	samples    []pprofSample
	mappings   []*pprofMapping
	functions  []*pprofFunction
	locations  []*pprofLocation

	mappingIDs  map[mappingKey]*pprofMapping
	functionIDs map[functionKey]*pprofFunction
	locationIDs map[locationKey]*pprofLocation
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

// The profile's parts, as profile.proto has them; ids count from 1.
type (
	pprofSample struct {
		locations []uint64 // location ids, leaf first
		labels    []pprofLabel
	}
	pprofLabel struct {
		key, str string
		num      int64
		numUnit  string
	}
	pprofMapping struct {
		id                   uint64
		start, limit, offset uint64
		file, buildID        string
	}
	pprofFunction struct {
		id         uint64
		name, file string
	}
	pprofLocation struct {
		id, mapping, address uint64 // mapping 0: none
		lines                []pprofLine
	}
	pprofLine struct {
		function     uint64
		line, column int64
	}
)

// NewProfileBuilder starts a profile whose samples count sampleType
// (SampleThreads or SampleCrashes), one per thread.
func NewProfileBuilder(sampleType string) *ProfileBuilder {
	return &ProfileBuilder{
		sampleType:  sampleType,
		mappingIDs:  map[mappingKey]*pprofMapping{},
		functionIDs: map[functionKey]*pprofFunction{},
		locationIDs: map[locationKey]*pprofLocation{},
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
	mods := make([]*pprofMapping, len(r.Modules))
	for i := range r.Modules {
		mods[i] = b.mapping(&r.Modules[i])
	}
	for ti := range r.Threads {
		t := &r.Threads[ti]
		if opts.CrashedOnly && !t.Crashed {
			continue
		}
		labels := map[string]string{"crashed": strconv.FormatBool(t.Crashed)}
		if t.Name != nil {
			labels["thread"] = *t.Name
		}
		if t.Crashed && r.Core.Signal != nil {
			labels["signal"] = r.Core.Signal.Name
		}
		if t.Error != nil {
			labels["unwind_error"] = *t.Error
		}
		for k, v := range opts.Labels {
			labels[k] = v
		}
		var s pprofSample
		for _, k := range slices.Sorted(maps.Keys(labels)) {
			s.labels = append(s.labels, pprofLabel{key: k, str: labels[k]})
		}
		s.labels = append(s.labels, pprofLabel{key: "tid", num: int64(t.TID), numUnit: "id"})
		s.locations = b.stackLocations(r, mods, t.Frames)
		b.samples = append(b.samples, s)
	}
}

// stackLocations are the location ids of a stack's frames, leaf first:
// one per physical frame, with its inlined calls.
func (b *ProfileBuilder) stackLocations(r *Report, mods []*pprofMapping, frames []Frame) []uint64 {
	var ids []uint64
	for start := 0; start < len(frames); {
		end := start
		for end < len(frames)-1 && frames[end].Inlined {
			end++
		}
		ids = append(ids, b.location(r, mods, frames[start:end+1]).id)
		start = end + 1
	}
	return ids
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
	return b.Write(w)
}

func (b *ProfileBuilder) mapping(m *Module) *pprofMapping {
	k := mappingKey{file: m.Path, start: uint64(m.Start), limit: uint64(m.End), offset: uint64(m.FileOffset)}
	if m.BuildID != nil {
		k.buildID = *m.BuildID
	}
	if pm, ok := b.mappingIDs[k]; ok {
		return pm
	}
	pm := &pprofMapping{id: uint64(len(b.mappings) + 1), start: k.start, limit: k.limit, offset: k.offset, file: k.file, buildID: k.buildID}
	b.mappingIDs[k] = pm
	b.mappings = append(b.mappings, pm)
	return pm
}

// location returns the location of one physical frame: its inlined calls
// (innermost first) and the function they were inlined into, last.
func (b *ProfileBuilder) location(r *Report, mods []*pprofMapping, frames []Frame) *pprofLocation {
	outer := &frames[len(frames)-1]
	addr := uint64(outer.PC)
	// A caller frame's pc is a return address; the call is the
	// instruction before it. Exact PCs (frame 0, a frame interrupted by
	// a signal) are the instruction itself.
	if !outer.ExactPC && addr > 0 {
		addr--
	}
	var mapping uint64
	if outer.Language == LanguagePython {
		// A Python function, not code of a mapping: its pc is the
		// evaluator's, shared by every Python frame it runs.
		addr = 0
	}
	for i := range r.Modules {
		if addr == 0 {
			break
		}
		if uint64(outer.PC) >= uint64(r.Modules[i].Start) && uint64(outer.PC) < uint64(r.Modules[i].End) {
			mapping = mods[i].id
			break
		}
	}
	var lines []pprofLine
	key := ""
	for i := range frames {
		f := &frames[i]
		if f.Function == nil {
			continue
		}
		ln := pprofLine{function: b.function(*f.Function, deref(f.File)).id}
		if f.Line != nil {
			ln.line = int64(*f.Line)
		}
		if f.Column != nil {
			ln.column = int64(*f.Column)
		}
		lines = append(lines, ln)
		key += fmt.Sprintf("%d:%d:%d;", ln.function, ln.line, ln.column)
	}
	k := locationKey{mapping: mapping, address: addr, lines: key}
	if loc, ok := b.locationIDs[k]; ok {
		return loc
	}
	loc := &pprofLocation{id: uint64(len(b.locations) + 1), mapping: mapping, address: addr, lines: lines}
	b.locationIDs[k] = loc
	b.locations = append(b.locations, loc)
	return loc
}

func (b *ProfileBuilder) function(name, file string) *pprofFunction {
	k := functionKey{name, file}
	if fn, ok := b.functionIDs[k]; ok {
		return fn
	}
	// Reports carry demangled names only; the mangled one is not kept.
	fn := &pprofFunction{id: uint64(len(b.functions) + 1), name: name, file: file}
	b.functionIDs[k] = fn
	b.functions = append(b.functions, fn)
	return fn
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

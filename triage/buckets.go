package triage

import (
	"path"
	"slices"
	"sort"
	"time"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/report"
)

// Schema is the JSON schema string of a Summary.
const Schema = "coreunwind.triage/v1"

// DefaultMaxListed is how many core names a bucket lists by default.
const DefaultMaxListed = 100

// maxDistinct bounds the executables and build IDs a bucket lists: a
// signature shared by many programs (a library bug) must not grow a
// bucket without bound.
const maxDistinct = 32

// Summary is a batch's result, the JSON object of `triage --format json`
// (schema coreunwind.triage/v1, documented in triage-json.md).
type Summary struct {
	Schema string      `json:"schema"`
	Tool   report.Tool `json:"tool"`
	// SignatureVersion is the signature algorithm's (SignatureVersion)
	// and SignatureRules the digest of the --rules file's text (nil for
	// none): bucket ids of two batches compare only when both agree.
	SignatureVersion int     `json:"signature_version"`
	SignatureRules   *string `json:"signature_rules"`
	CoresTotal       int     `json:"cores_total"`
	CoresAnalyzed    int     `json:"cores_analyzed"`
	CoresFailed      int     `json:"cores_failed"`
	// CoresPartial counts the analyzed cores that are partial (cut
	// inside the crashing thread's stack); they are in CoresAnalyzed.
	CoresPartial int `json:"cores_partial"`
	// PartialBucketed: partial cores are bucket members like the others
	// (--bucket-partial), not only listed.
	PartialBucketed bool          `json:"partial_bucketed"`
	Buckets         []*Bucket     `json:"buckets"`
	Partial         []PartialCore `json:"partial"`
	Failures        []Failure     `json:"failures"`
}

// Bucket is the cores that share one signature.
type Bucket struct {
	ID           string     `json:"id"`
	Signature    string     `json:"signature"`
	Frames       []string   `json:"frames"`
	Count        int        `json:"count"`
	Signal       *string    `json:"signal"`
	Program      string     `json:"program"` // the executable's name, part of the key
	Executables  []string   `json:"executables"`
	BuildIDs     []string   `json:"build_ids"`
	FirstSeen    *time.Time `json:"first_seen"`
	LastSeen     *time.Time `json:"last_seen"`
	ExampleCore  string     `json:"example_core"`
	Cores        []string   `json:"cores"`
	CoresOmitted int        `json:"cores_omitted,omitempty"`
	// PartialCount is the partial cores of this bucket: members counted
	// in Count when the summary's PartialBucketed, else cores listed in
	// Partial whose exact signature is this bucket's, not counted.
	PartialCount int `json:"partial_count"`
	// Where the bucket's crashes came from (origins.go).
	BucketOrigins
	// Stack is the meaningful frames of one member's crashing thread
	// (Signature.Stack; the smallest of the members', so that it does not
	// depend on their order): what similar-bucket links compare.
	Stack []string `json:"stack"`
	// Similar are the buckets most likely the same bug, best first.
	Similar []SimilarBucket `json:"similar"`
	// WordsUnknown counts the members whose crash words (an abort
	// message, an assertion) their input could not hold (wordless.go).
	WordsUnknown int `json:"words_unknown,omitempty"`
}

// PartialCore is an analyzed core whose crashing thread's stack was cut
// short by the core's truncation.
type PartialCore struct {
	Core      string  `json:"core"`
	Reason    string  `json:"reason"`
	Frames    int     `json:"frames"`    // frames the walk found (inlined calls not counted)
	Signature string  `json:"signature"` // what the frames found give, trusted or not
	Bucket    *string `json:"bucket"`    // the bucket it is in or matches; nil: none
}

// Failure is an input that looked like a core but gave no signature.
type Failure struct {
	Core  string `json:"core"`
	Error string `json:"error"`
}

// Collector gathers results into buckets, keeping per bucket only its
// counts, times and the first MaxListed core names (by name), so its
// memory depends on the number of buckets, not of cores.
type Collector struct {
	MaxListed int // core names listed per bucket; <=0: DefaultMaxListed
	// Rules is the digest of the rules in effect ("" for none), for the
	// summary's SignatureRules.
	Rules string
	// BucketPartial makes partial cores bucket members like the others;
	// by default they create and join no bucket (their stack is cut, so
	// their signature may be one the crash does not have).
	BucketPartial bool
	buckets       map[string]*Bucket
	sum           Summary
	// evidence are the partial cores not bucketed whose signature is
	// exact, by signature id: whether a bucket of whole cores has it is
	// known only once the batch is over.
	evidence map[string][]int // signature id -> indexes in sum.Partial
}

// NewCollector returns an empty collector.
func NewCollector(maxListed int) *Collector {
	return &Collector{MaxListed: maxListed, buckets: map[string]*Bucket{}, evidence: map[string][]int{}}
}

// Add counts one result.
func (c *Collector) Add(r *Result) { c.AddRecord(r.Record()) }

// AddRecord counts one core. The summary does not depend on the order
// in which cores are added, nor on how they were split between
// collectors later merged (Merge): listed names are the smallest ones,
// times the extremes, everything else counts or sorted lists.
func (c *Collector) AddRecord(r Record) {
	c.sum.CoresTotal++
	if r.Failed() {
		c.sum.CoresFailed++
		c.sum.Failures = append(c.sum.Failures, Failure{Core: r.Core, Error: r.Error})
		return
	}
	c.sum.CoresAnalyzed++
	if r.Partial != "" {
		c.sum.CoresPartial++
		p := PartialCore{Core: r.Core, Reason: r.Partial, Signature: r.Sig.Text, Frames: r.PartialFrames}
		if !c.BucketPartial {
			if r.Sig.Exact {
				c.evidence[r.Sig.ID] = append(c.evidence[r.Sig.ID], len(c.sum.Partial))
			}
			c.sum.Partial = append(c.sum.Partial, p)
			return
		}
		id := r.Sig.ID
		p.Bucket = &id
		c.sum.Partial = append(c.sum.Partial, p)
	}
	b := c.bucket(r.Sig)
	b.keepStack(r.Sig.Stack)
	if r.Partial != "" {
		b.PartialCount++
	}
	b.Count++
	if r.Sig.WordsUnknown {
		b.WordsUnknown++
	}
	if r.Executable != "" {
		b.Executables = addDistinct(b.Executables, r.Executable)
	}
	if r.BuildID != "" {
		b.BuildIDs = addDistinct(b.BuildIDs, r.BuildID)
	}
	b.BucketOrigins.add(r.Origin)
	if t := r.Time; !t.IsZero() {
		b.seen(&t, &t)
	}
	b.Cores, b.CoresOmitted = insertLimited(b.Cores, r.Core, c.maxListed(), b.CoresOmitted)
}

// Merge adds what o counted to c, as if every core added to o had been
// added to c; o must not be used afterwards (c may share its buckets).
// Both must have the same MaxListed and BucketPartial.
func (c *Collector) Merge(o *Collector) {
	if c.Rules == "" {
		c.Rules = o.Rules
	}
	c.sum.CoresTotal += o.sum.CoresTotal
	c.sum.CoresAnalyzed += o.sum.CoresAnalyzed
	c.sum.CoresFailed += o.sum.CoresFailed
	c.sum.CoresPartial += o.sum.CoresPartial
	c.sum.Failures = append(c.sum.Failures, o.sum.Failures...)
	base := len(c.sum.Partial)
	c.sum.Partial = append(c.sum.Partial, o.sum.Partial...)
	for id, idx := range o.evidence {
		for _, i := range idx {
			c.evidence[id] = append(c.evidence[id], base+i)
		}
	}
	for id, ob := range o.buckets {
		b := c.buckets[id]
		if b == nil {
			c.buckets[id] = ob
			continue
		}
		b.absorb(ob, c.maxListed())
	}
}

// absorb adds the members of o, a bucket of the same crash, to b.
func (b *Bucket) absorb(o *Bucket, maxListed int) {
	b.Count += o.Count
	b.PartialCount += o.PartialCount
	b.WordsUnknown += o.WordsUnknown
	for _, e := range o.Executables {
		b.Executables = addDistinct(b.Executables, e)
	}
	for _, e := range o.BuildIDs {
		b.BuildIDs = addDistinct(b.BuildIDs, e)
	}
	b.BucketOrigins.merge(&o.BucketOrigins)
	b.seen(o.FirstSeen, o.LastSeen)
	b.keepStack(o.Stack)
	for _, name := range o.Cores {
		b.Cores, b.CoresOmitted = insertLimited(b.Cores, name, maxListed, b.CoresOmitted)
	}
	b.CoresOmitted += o.CoresOmitted
}

// keepStack keeps the smaller of the bucket's stack and st (compared
// frame by frame), so that a bucket's stack does not depend on the order
// its members came in.
func (b *Bucket) keepStack(st []string) {
	if len(st) == 0 {
		return
	}
	if len(b.Stack) == 0 || slices.Compare(st, b.Stack) < 0 {
		b.Stack = append([]string(nil), st...)
	}
}

// seen widens the bucket's first and last seen times to first and last
// (nil: unknown).
func (b *Bucket) seen(first, last *time.Time) {
	if first != nil && (b.FirstSeen == nil || first.Before(*b.FirstSeen)) {
		t := *first
		b.FirstSeen = &t
	}
	if last != nil && (b.LastSeen == nil || last.After(*b.LastSeen)) {
		t := *last
		b.LastSeen = &t
	}
}

// bucket returns the bucket of sig, made on first use.
func (c *Collector) bucket(sig Signature) *Bucket {
	b := c.buckets[sig.ID]
	if b == nil {
		b = &Bucket{ID: sig.ID, Signature: sig.Text, Frames: sig.Frames, Program: sig.Program,
			Executables: []string{}, BuildIDs: []string{}, Stack: []string{}, Similar: []SimilarBucket{},
			BucketOrigins: newBucketOrigins()}
		if sig.Signal != "" {
			b.Signal = &sig.Signal
		}
		c.buckets[sig.ID] = b
	}
	return b
}

func (c *Collector) maxListed() int {
	if c.MaxListed <= 0 {
		return DefaultMaxListed
	}
	return c.MaxListed
}

// Summary returns the buckets, largest first (then by id, for a stable
// order), and the partial cores and failures sorted by core name. A
// partial core not bucketed is attached to the bucket of whole cores
// that has its signature, when its signature is exact; a bucket of
// crashes whose inputs could not hold their crash words joins the one
// bucket of the same crash signed by them (joinWordless).
func (c *Collector) Summary() *Summary {
	s := c.sum
	s.PartialBucketed = c.BucketPartial
	s.Partial = append([]PartialCore{}, c.sum.Partial...)
	for id, idx := range c.evidence {
		b := c.buckets[id]
		if b == nil {
			continue
		}
		b.PartialCount = len(idx)
		for _, i := range idx {
			s.Partial[i].Bucket = &b.ID
		}
	}
	sort.Slice(s.Partial, func(i, j int) bool {
		a, b := s.Partial[i], s.Partial[j]
		if a.Core != b.Core {
			return a.Core < b.Core
		}
		if a.Reason != b.Reason {
			return a.Reason < b.Reason
		}
		return a.Signature < b.Signature
	})
	s.Schema = Schema
	s.SignatureVersion = SignatureVersion
	if c.Rules != "" {
		s.SignatureRules = &c.Rules
	}
	s.Tool = report.Tool{Name: "coreunwind", Version: analyze.Version}
	s.Buckets = make([]*Bucket, 0, len(c.buckets))
	for _, b := range c.joinWordless() {
		if len(b.Cores) > 0 {
			b.ExampleCore = b.Cores[0]
		}
		s.Buckets = append(s.Buckets, b)
	}
	sort.Slice(s.Buckets, func(i, j int) bool {
		a, b := s.Buckets[i], s.Buckets[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.ID < b.ID
	})
	linkSimilar(s.Buckets, DefaultSimilarity, DefaultMaxSimilar)
	s.Failures = append([]Failure{}, c.sum.Failures...)
	sort.Slice(s.Failures, func(i, j int) bool {
		a, b := s.Failures[i], s.Failures[j]
		if a.Core != b.Core {
			return a.Core < b.Core
		}
		return a.Error < b.Error
	})
	return &s
}

// mainExecutable returns the core's executable and its build ID.
func mainExecutable(r *report.Report) (exe, buildID string) {
	if r.Core.Executable != nil {
		exe = *r.Core.Executable
	}
	for _, m := range r.Modules {
		if m.Path == exe || (exe != "" && path.Base(m.Path) == path.Base(exe)) {
			if m.BuildID != nil {
				buildID = *m.BuildID
			}
			break
		}
	}
	return exe, buildID
}

// addDistinct inserts v into the sorted list unless it is there, keeping
// the maxDistinct smallest values: the list does not depend on the order
// values come in.
func addDistinct(list []string, v string) []string {
	i := sort.SearchStrings(list, v)
	if i < len(list) && list[i] == v {
		return list
	}
	if len(list) >= maxDistinct {
		if i >= len(list) {
			return list
		}
		list = list[:len(list)-1]
	}
	list = append(list, "")
	copy(list[i+1:], list[i:])
	list[i] = v
	return list
}

// insertLimited keeps the max smallest names in order, counting the rest
// as omitted: the listing does not depend on completion order.
func insertLimited(list []string, name string, max, omitted int) ([]string, int) {
	i := sort.SearchStrings(list, name)
	if len(list) >= max {
		if i >= len(list) {
			return list, omitted + 1
		}
		list = list[:len(list)-1]
		omitted++
	}
	list = append(list, "")
	copy(list[i+1:], list[i:])
	list[i] = name
	return list, omitted
}

package triage

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// EvalSchema is the JSON schema string of an Evaluation.
const EvalSchema = "coreunwind.triage-eval/v1"

// Evaluation scores a batch's buckets against a labelled corpus: BCubed
// precision, recall and F1 over the labelled cores (Amigó et al., 2009),
// the bugs split over several buckets (bucket spray) and the buckets
// holding several bugs (bucket bugs), and how much of the spray the
// similar-bucket links recover at each threshold.
type Evaluation struct {
	Schema           string `json:"schema"`
	SignatureVersion int    `json:"signature_version"`
	// Cores are the labelled cores analyzed; Unlabelled the analyzed
	// cores the labels do not name, Missing the labelled cores the batch
	// did not analyze (failed or absent), Failed the inputs that failed.
	Cores      int `json:"cores"`
	Unlabelled int `json:"unlabelled"`
	Missing    int `json:"missing"`
	Failed     int `json:"failed"`
	Bugs       int `json:"bugs"`
	Buckets    int `json:"buckets"`
	// Precision, Recall and F1 are BCubed's.
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// Partial is the labelled cores that are partial (truncated inside
	// the crashing thread's stack) and Whole the BCubed figures of the
	// others: what the signatures do when the stack is there.
	Partial int           `json:"partial"`
	Whole   BCubedFigures `json:"whole"`
	// SplitBugs are the bugs in more than one bucket, MixedBuckets the
	// buckets with more than one bug; Spray is the merges that would
	// put every bug in one bucket (the sum of its buckets less one).
	SplitBugs    int `json:"split_bugs"`
	MixedBuckets int `json:"mixed_buckets"`
	Spray        int `json:"spray"`
	// BucketSpray is the part of Spray between buckets: what links can
	// recover (a partial core in no bucket is no link's end).
	BucketSpray int `json:"bucket_spray"`
	// Links are the similar-bucket links' figures at each threshold;
	// ChosenThreshold the lowest one whose links have precision at least
	// MinLinkPrecision (null when none has), DefaultThreshold what triage
	// links by (DefaultSimilarity).
	Links            []LinkFigures `json:"links"`
	ChosenThreshold  *float64      `json:"chosen_threshold"`
	DefaultThreshold float64       `json:"default_threshold"`
	// Split lists each bug split over buckets, Mixed each bucket holding
	// several bugs: what to look at.
	Split []SplitBug    `json:"split"`
	Mixed []MixedBucket `json:"mixed"`
}

// BCubedFigures are BCubed precision, recall and F1 over some cores.
type BCubedFigures struct {
	Cores     int     `json:"cores"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// bcubed scores clusters (core -> cluster id) against bugs (core ->
// bug): each core's precision is the share of its cluster that is its
// bug, its recall the share of its bug in its cluster.
func bcubed(cluster, bug map[string]string) BCubedFigures {
	inCluster := map[string]int{}
	inBug := map[string]int{}
	both := map[[2]string]int{}
	for core, c := range cluster {
		inCluster[c]++
		inBug[bug[core]]++
		both[[2]string{c, bug[core]}]++
	}
	var p, r float64
	for k, n := range both {
		p += float64(n) * float64(n) / float64(inCluster[k[0]])
		r += float64(n) * float64(n) / float64(inBug[k[1]])
	}
	f := BCubedFigures{Cores: len(cluster)}
	if f.Cores > 0 {
		f.Precision, f.Recall = round4(p/float64(f.Cores)), round4(r/float64(f.Cores))
		f.F1 = f1(f.Precision, f.Recall)
	}
	return f
}

// LinkFigures are the similar-bucket links at one threshold: the links
// (pairs of buckets scoring at least Threshold), those joining buckets of
// the same bug (by majority), their precision, and the spray they recover
// (merges of one bug's buckets that following the links makes).
type LinkFigures struct {
	Threshold      float64 `json:"threshold"`
	Links          int     `json:"links"`
	Correct        int     `json:"correct"`
	Precision      float64 `json:"precision"`
	SprayRecovered int     `json:"spray_recovered"`
	Recovered      float64 `json:"recovered"` // SprayRecovered / BucketSpray
}

// SplitBug is a bug in several buckets.
type SplitBug struct {
	Bug     string   `json:"bug"`
	Buckets []string `json:"buckets"` // "id signature (cores)"
}

// MixedBucket is a bucket holding several bugs.
type MixedBucket struct {
	Bucket    string         `json:"bucket"`
	Signature string         `json:"signature"`
	Bugs      map[string]int `json:"bugs"`
}

// MinLinkPrecision is the precision links must keep for their threshold
// to be chosen.
const MinLinkPrecision = 0.9

// Evaluator gathers a batch's records for an evaluation.
type Evaluator struct {
	labels  *Labels
	coll    *Collector
	bucket  map[string]string // labelled core as written -> bucket id
	partial map[string]bool   // labelled core as written -> partial
	unlabel int
	failed  int
}

// NewEvaluator returns an evaluator of buckets against labels.
func NewEvaluator(labels *Labels) *Evaluator {
	// Every core of a bucket is listed: the evaluation needs them all.
	c := NewCollector(math.MaxInt32)
	return &Evaluator{labels: labels, coll: c, bucket: map[string]string{}, partial: map[string]bool{}}
}

// Add counts one finished core. A partial core counts as triage places
// it: in the bucket of its signature when the signature is exact (the
// rest of the stack could not change it), else alone (triage lists it in
// no bucket).
func (e *Evaluator) Add(rec Record) {
	if rec.Failed() {
		e.failed++
		return
	}
	e.coll.AddRecord(rec)
	_, name, ok := e.labels.Bug(rec.Core)
	if !ok {
		e.unlabel++
		return
	}
	id := rec.Sig.ID
	if rec.Partial != "" && !rec.Sig.Exact {
		id = "partial:" + rec.Core
	}
	e.bucket[name] = id
	e.partial[name] = rec.Partial != ""
}

// Evaluate scores what was added.
func (e *Evaluator) Evaluate() *Evaluation {
	sum := e.coll.Summary()
	ev := &Evaluation{Schema: EvalSchema, SignatureVersion: SignatureVersion, Unlabelled: e.unlabel,
		Failed: e.failed, DefaultThreshold: DefaultSimilarity, Split: []SplitBug{}, Mixed: []MixedBucket{}, Links: []LinkFigures{}}
	// counts[bucket][bug]
	counts := map[string]map[string]int{}
	bugSize := map[string]int{}
	for _, name := range e.labels.names {
		id, ok := e.bucket[name]
		if !ok {
			ev.Missing++
			continue
		}
		bug := e.labels.bugOf[name]
		if counts[id] == nil {
			counts[id] = map[string]int{}
		}
		counts[id][bug]++
		bugSize[bug]++
		ev.Cores++
	}
	ev.Bugs, ev.Buckets = len(bugSize), len(counts)
	all, whole, bugs := map[string]string{}, map[string]string{}, map[string]string{}
	for name, id := range e.bucket {
		all[name], bugs[name] = id, e.labels.bugOf[name]
		if e.partial[name] {
			ev.Partial++
		} else {
			whole[name] = id
		}
	}
	f := bcubed(all, bugs)
	ev.Precision, ev.Recall, ev.F1 = f.Precision, f.Recall, f.F1
	ev.Whole = bcubed(whole, bugs)
	byID := map[string]*Bucket{}
	for _, b := range sum.Buckets {
		byID[b.ID] = b
	}
	bucketsOf := map[string][]string{}
	for id, bugs := range counts {
		if len(bugs) > 1 {
			ev.MixedBuckets++
			ev.Mixed = append(ev.Mixed, MixedBucket{Bucket: id, Signature: signatureOf(byID, id), Bugs: bugs})
		}
		for bug := range bugs {
			bucketsOf[bug] = append(bucketsOf[bug], id)
		}
	}
	for bug, ids := range bucketsOf {
		ev.Spray += len(ids) - 1
		inBuckets := 0
		for _, id := range ids {
			if !strings.HasPrefix(id, "partial:") {
				inBuckets++
			}
		}
		if inBuckets > 1 {
			ev.BucketSpray += inBuckets - 1
		}
		if len(ids) > 1 {
			ev.SplitBugs++
			sort.Strings(ids)
			sb := SplitBug{Bug: bug}
			for _, id := range ids {
				sb.Buckets = append(sb.Buckets, fmt.Sprintf("%s %s (%d)", id, signatureOf(byID, id), counts[id][bug]))
			}
			ev.Split = append(ev.Split, sb)
		}
	}
	sort.Slice(ev.Split, func(i, j int) bool { return ev.Split[i].Bug < ev.Split[j].Bug })
	sort.Slice(ev.Mixed, func(i, j int) bool { return ev.Mixed[i].Bucket < ev.Mixed[j].Bucket })
	ev.linkFigures(sum.Buckets, counts, bucketsOf)
	return ev
}

// signatureOf is a cluster's signature: its bucket's, or what a partial
// core in no bucket is.
func signatureOf(byID map[string]*Bucket, id string) string {
	if b := byID[id]; b != nil {
		return b.Signature
	}
	if strings.HasPrefix(id, "partial:") {
		return "(partial core, in no bucket)"
	}
	return "(partial cores only)"
}

// linkFigures scores the similar-bucket links at thresholds 0.05 to 1.
func (ev *Evaluation) linkFigures(buckets []*Bucket, counts map[string]map[string]int, bucketsOf map[string][]string) {
	majority := map[string]string{}
	for id, bugs := range counts {
		best := ""
		for bug, n := range bugs {
			if best == "" || n > bugs[best] || n == bugs[best] && bug < best {
				best = bug
			}
		}
		majority[id] = best
	}
	var labelled []*Bucket
	for _, b := range buckets {
		if counts[b.ID] != nil {
			labelled = append(labelled, b)
		}
	}
	pairs := scorePairs(labelled, 0)
	for step := 1; step <= 20; step++ {
		t := float64(step) / 20
		lf := LinkFigures{Threshold: t}
		uf := unionFind{}
		for _, p := range pairs {
			if p.score < t {
				continue
			}
			lf.Links++
			if majority[p.a.ID] == majority[p.b.ID] {
				lf.Correct++
			}
			uf.union(p.a.ID, p.b.ID)
		}
		for _, ids := range bucketsOf {
			comps := map[string]bool{}
			for _, id := range ids {
				comps[uf.find(id)] = true
			}
			lf.SprayRecovered += len(ids) - len(comps)
		}
		if lf.Links > 0 {
			lf.Precision = round4(float64(lf.Correct) / float64(lf.Links))
		}
		if ev.BucketSpray > 0 {
			lf.Recovered = round4(float64(lf.SprayRecovered) / float64(ev.BucketSpray))
		}
		ev.Links = append(ev.Links, lf)
		if ev.ChosenThreshold == nil && lf.Links > 0 && lf.Precision >= MinLinkPrecision {
			th := t
			ev.ChosenThreshold = &th
		}
	}
}

// unionFind groups bucket ids joined by links.
type unionFind map[string]string

func (u unionFind) find(x string) string {
	for {
		p, ok := u[x]
		if !ok || p == x {
			return x
		}
		if gp, ok := u[p]; ok {
			u[x] = gp // path halving
		}
		x = p
	}
}

func (u unionFind) union(a, b string) {
	ra, rb := u.find(a), u.find(b)
	if ra != rb {
		u[ra] = rb
	}
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return round4(2 * p * r / (p + r))
}

func round4(x float64) float64 { return math.Round(x*10000) / 10000 }

// At returns the link figures at the threshold nearest t.
func (ev *Evaluation) At(t float64) (LinkFigures, bool) {
	best, ok := LinkFigures{}, false
	for _, lf := range ev.Links {
		if !ok || math.Abs(lf.Threshold-t) < math.Abs(best.Threshold-t) {
			best, ok = lf, true
		}
	}
	return best, ok
}

// WriteEvaluation writes an evaluation as text.
func WriteEvaluation(w io.Writer, ev *Evaluation) error {
	var b strings.Builder
	fmt.Fprintf(&b, "signature algorithm v%d: %d labelled cores, %d bugs, %d buckets (%d unlabelled, %d labelled not analyzed, %d failed)\n",
		ev.SignatureVersion, ev.Cores, ev.Bugs, ev.Buckets, ev.Unlabelled, ev.Missing, ev.Failed)
	fmt.Fprintf(&b, "BCubed precision %.4f  recall %.4f  F1 %.4f\n", ev.Precision, ev.Recall, ev.F1)
	fmt.Fprintf(&b, "  whole cores (%d; %d partial left out): precision %.4f  recall %.4f  F1 %.4f\n",
		ev.Whole.Cores, ev.Partial, ev.Whole.Precision, ev.Whole.Recall, ev.Whole.F1)
	fmt.Fprintf(&b, "bugs split over several buckets: %d (spray: %d merges, %d between buckets, %d of partial cores in no bucket)\n",
		ev.SplitBugs, ev.Spray, ev.BucketSpray, ev.Spray-ev.BucketSpray)
	fmt.Fprintf(&b, "buckets holding several bugs: %d\n", ev.MixedBuckets)
	for _, m := range ev.Mixed {
		var bugs []string
		for bug, n := range m.Bugs {
			bugs = append(bugs, fmt.Sprintf("%s (%d)", bug, n))
		}
		sort.Strings(bugs)
		fmt.Fprintf(&b, "  mixed %s %s: %s\n", m.Bucket, oneLine(m.Signature), strings.Join(bugs, ", "))
	}
	for _, s := range ev.Split {
		fmt.Fprintf(&b, "  split %s:\n", oneLine(s.Bug))
		for _, x := range s.Buckets {
			fmt.Fprintf(&b, "    %s\n", oneLine(x))
		}
	}
	fmt.Fprintf(&b, "similar-bucket links (precision wanted >= %.2f; spray between buckets recovered):\n", MinLinkPrecision)
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  threshold\tlinks\tcorrect\tprecision\tspray recovered\t")
	for _, lf := range ev.Links {
		mark := ""
		if ev.ChosenThreshold != nil && lf.Threshold == *ev.ChosenThreshold {
			mark = "  <- chosen"
		}
		if math.Abs(lf.Threshold-ev.DefaultThreshold) < 1e-9 {
			mark += "  <- default"
		}
		fmt.Fprintf(tw, "  %.2f\t%d\t%d\t%.4f\t%d of %d (%.0f%%)\t%s\n", lf.Threshold, lf.Links, lf.Correct, lf.Precision,
			lf.SprayRecovered, ev.BucketSpray, 100*lf.Recovered, mark)
	}
	tw.Flush()
	if ev.ChosenThreshold == nil {
		fmt.Fprintln(&b, "no threshold keeps the links' precision")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

package triage

import "time"

// Record is what a batch's summary needs of one finished core: a Result
// without its report. It is small and plain (no open files, no
// pointers into a report), so a distributed runner can send it between
// workers (the Beam pipeline encodes it as JSON); Collector.Add is
// AddRecord of a result's record, so every runner buckets alike.
type Record struct {
	Core  string    `json:"core"`  // Input.Name
	Time  time.Time `json:"time"`  // Input.Time; zero: unknown
	Error string    `json:"error"` // why the core failed; "" when analyzed
	Sig   Signature `json:"sig"`
	// Partial says why the core is partial ("" for a whole stack), and
	// PartialFrames how many frames its walk found.
	Partial       string `json:"partial"`
	PartialFrames int    `json:"partial_frames"`
	// Executable and BuildID are the core's main executable.
	Executable string `json:"executable"`
	BuildID    string `json:"build_id"`
	// Origin is what the crash report the core came in records
	// (Input.Origin); its Source is "core" for a core file, "minidump"
	// for a minidump.
	Origin RecordOrigin `json:"origin"`
}

// Record returns what the summary keeps of r.
func (r *Result) Record() Record {
	rec := Record{Core: r.Input.Name, Time: r.Input.Time}
	if r.Err != nil {
		rec.Error = r.Err.Error()
		return rec
	}
	rec.Sig = r.Sig
	rec.Partial = r.Partial
	if r.Partial != "" {
		if th := crashedThread(r.Report); th != nil {
			rec.PartialFrames = physicalFrames(th)
		}
	}
	rec.Executable, rec.BuildID = mainExecutable(r.Report)
	rec.Origin = recordOrigin(r.Input.Origin, &r.Report.Core)
	return rec
}

// Failed reports whether the core gave no signature.
func (rec *Record) Failed() bool { return rec.Error != "" }

// BucketID is the bucket a finished core is in as it finishes: its
// signature's, or "" when it failed or is a partial core not bucketed
// (whether a bucket of whole cores matches it is known only at the end).
func (r *Result) BucketID(bucketPartial bool) string {
	if r.Err != nil || r.Partial != "" && !bucketPartial {
		return ""
	}
	return r.Sig.ID
}

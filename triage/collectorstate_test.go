package triage

import (
	"bytes"
	"testing"
	"time"
)

// FuzzCollectorState: any bytes given as a collector's state (what a
// distributed runner hands a worker) are refused with an error or give
// a collector that merges, summarizes and writes without panicking.
func FuzzCollectorState(f *testing.F) {
	c := NewCollector(1)
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	sig := Signature{Frames: []string{"parse_record"}, Signal: "SIGSEGV", Text: "parse_record", ID: "b1f0c2d9e4a7", Exact: true}
	c.AddRecord(Record{Core: "a/core.1", Time: t0, Sig: sig, Executable: "/usr/bin/prog", BuildID: "ab12"})
	c.AddRecord(Record{Core: "a/core.2", Time: t0.Add(time.Hour), Sig: sig, Executable: "/usr/bin/prog"})
	c.AddRecord(Record{Core: "a/core.3", Sig: sig, Partial: "core truncated", PartialFrames: 2})
	c.AddRecord(Record{Core: "a/broken.core", Error: "not a core file"})
	seed, err := c.MarshalJSON()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"buckets":{"x":null}}`))
	f.Add([]byte(`{"evidence":{"x":[5]},"partial_cores":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var got Collector
		if err := got.UnmarshalJSON(b); err != nil {
			return
		}
		merged := NewCollector(got.MaxListed)
		merged.BucketPartial = got.BucketPartial
		merged.Merge(&got)
		var out bytes.Buffer
		if err := WriteJSON(&out, merged.Summary()); err != nil {
			t.Fatal(err)
		}
		WriteText(&out, merged.Summary())
	})
}

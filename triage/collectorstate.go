package triage

import (
	"encoding/json"
	"fmt"
)

// collectorState is a Collector as JSON: what a distributed runner sends
// between workers when it merges partial collectors (a Beam combine's
// accumulator).
type collectorState struct {
	MaxListed     int                `json:"max_listed"`
	Rules         string             `json:"rules"`
	BucketPartial bool               `json:"bucket_partial"`
	Total         int                `json:"total"`
	Analyzed      int                `json:"analyzed"`
	Failed        int                `json:"failed"`
	Partial       int                `json:"partial"`
	Buckets       map[string]*Bucket `json:"buckets"`
	PartialCores  []PartialCore      `json:"partial_cores"`
	Failures      []Failure          `json:"failures"`
	Evidence      map[string][]int   `json:"evidence"`
}

// MarshalJSON encodes the collector's whole state (not its summary).
func (c *Collector) MarshalJSON() ([]byte, error) {
	return json.Marshal(collectorState{
		MaxListed: c.MaxListed, Rules: c.Rules, BucketPartial: c.BucketPartial,
		Total: c.sum.CoresTotal, Analyzed: c.sum.CoresAnalyzed, Failed: c.sum.CoresFailed, Partial: c.sum.CoresPartial,
		Buckets: c.buckets, PartialCores: c.sum.Partial, Failures: c.sum.Failures, Evidence: c.evidence,
	})
}

// UnmarshalJSON restores a state MarshalJSON encoded.
func (c *Collector) UnmarshalJSON(b []byte) error {
	var s collectorState
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("triage: collector state: %w", err)
	}
	for id, b := range s.Buckets {
		if b == nil || b.ID != id {
			return fmt.Errorf("triage: collector state: bucket %q: missing or under another id", id)
		}
	}
	for id, idx := range s.Evidence {
		for _, i := range idx {
			if i < 0 || i >= len(s.PartialCores) {
				return fmt.Errorf("triage: collector state: evidence %s: index %d of %d partial cores", id, i, len(s.PartialCores))
			}
		}
	}
	*c = Collector{MaxListed: s.MaxListed, Rules: s.Rules, BucketPartial: s.BucketPartial, buckets: s.Buckets, evidence: s.Evidence}
	if c.buckets == nil {
		c.buckets = map[string]*Bucket{}
	}
	if c.evidence == nil {
		c.evidence = map[string][]int{}
	}
	c.sum = Summary{CoresTotal: s.Total, CoresAnalyzed: s.Analyzed, CoresFailed: s.Failed, CoresPartial: s.Partial,
		Partial: s.PartialCores, Failures: s.Failures}
	return nil
}

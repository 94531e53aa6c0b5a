package triage

import (
	"slices"
	"sort"

	"github.com/coreunwind/coreunwind/report"
)

// A crash's words (a failed assertion's or glibc's abort message, an
// uncaught C++ exception's type, a Rust panic's location) are read from
// the process's memory: from a core, they sign an aborted crash. A
// minidump holds the threads' stacks and little else, not libc's data
// where the abort message lies, so the same crash in a minidump is signed
// by its frames alone and would make a bucket of its own. Such a
// bucket, all of whose members could not have had words, joins at the
// summary the one bucket of the same program and signal whose
// signature has words and whose stack begins with the wordless bucket's
// frames: the same crash site, signed by what the minidump lacked. With
// no such bucket, or more than one, it stays as it is.

// wordsUnreadable reports whether r's crash aborted in an input that
// cannot hold its words.
func wordsUnreadable(r *report.Report) bool {
	return r.Core.Format == minidumpFormat && r.Core.Signal != nil && r.Core.Signal.Name == "SIGABRT"
}

// joinWordless returns the collector's buckets with every wordless
// bucket joined to its worded one, as copies: the collector's own
// buckets are left as they are, so that it can go on counting.
func (c *Collector) joinWordless() map[string]*Bucket {
	ids := make([]string, 0, len(c.buckets))
	for id, b := range c.buckets {
		if b.WordsUnknown > 0 && b.WordsUnknown == b.Count {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return c.buckets
	}
	sort.Strings(ids)
	out := make(map[string]*Bucket, len(c.buckets))
	for id, b := range c.buckets {
		out[id] = b
	}
	for _, id := range ids {
		w := out[id]
		var into *Bucket
		for _, b := range out {
			if b == w || b.WordsUnknown == b.Count || b.Program != w.Program || !sameSignal(b.Signal, w.Signal) ||
				slices.Equal(b.Frames, w.Frames) || len(b.Stack) < len(w.Frames) || !slices.Equal(b.Stack[:len(w.Frames)], w.Frames) {
				continue
			}
			if into != nil {
				into = nil // two candidates: which one is unknown
				break
			}
			into = b
		}
		if into == nil {
			continue
		}
		joined := into.clone()
		joined.absorb(w, c.maxListed())
		out[into.ID] = joined
		delete(out, id)
	}
	return out
}

func sameSignal(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// clone copies b with its lists, so that adding to the copy leaves b as
// it is.
func (b *Bucket) clone() *Bucket {
	c := *b
	c.Executables, c.BuildIDs, c.Cores = slices.Clone(b.Executables), slices.Clone(b.BuildIDs), slices.Clone(b.Cores)
	c.Stack, c.Similar = slices.Clone(b.Stack), slices.Clone(b.Similar)
	c.BucketOrigins = BucketOrigins{Sources: slices.Clone(b.Sources), Units: slices.Clone(b.Units),
		Hostnames: slices.Clone(b.Hostnames), BootIDs: slices.Clone(b.BootIDs), Packages: slices.Clone(b.Packages),
		CommandLines: slices.Clone(b.CommandLines)}
	if b.FirstSeen != nil {
		t := *b.FirstSeen
		c.FirstSeen = &t
	}
	if b.LastSeen != nil {
		t := *b.LastSeen
		c.LastSeen = &t
	}
	return &c
}

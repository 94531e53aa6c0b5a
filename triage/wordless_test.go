package triage

import (
	"strings"
	"testing"
)

// wordlessRecord is a record of program prog's crash by signal, signed
// by frames, its stack stack; wordless marks a minidump's abort.
func wordlessRecord(core, prog, signal string, frames, stack []string, wordless bool) Record {
	sig := Signature{Frames: frames, Signal: signal, Program: prog, Text: strings.Join(frames, " | "),
		ID: signatureID(prog, signal, frames), Stack: stack, WordsUnknown: wordless}
	return Record{Core: core, Sig: sig, Origin: RecordOrigin{Source: "core"}}
}

// TestJoinWordless: a bucket of minidumps of an abort, signed by frames
// because they cannot hold the abort message, joins the one bucket of
// the same program and signal signed by the message whose stack begins
// with its frames; not one of another program, nor when two buckets
// would do, nor when a member of its own is a core that had no words.
// Summaries leave the collector counting as before.
func TestJoinWordless(t *testing.T) {
	stack := []string{"release_buffer", "run_bug", "main"}
	worded := func(core, prog, msg string) Record {
		return wordlessRecord(core, prog, "SIGABRT", []string{"abort: " + msg, "release_buffer"}, stack, false)
	}
	frames := []string{"release_buffer"}
	for _, tc := range []struct {
		name    string
		records []Record
		buckets int
	}{
		{"joins", []Record{worded("core.1", "bugs", "double free"), worded("core.2", "bugs", "double free"),
			wordlessRecord("a.dmp", "bugs", "SIGABRT", frames, stack, true)}, 1},
		{"another program", []Record{worded("core.1", "other", "double free"),
			wordlessRecord("a.dmp", "bugs", "SIGABRT", frames, stack, true)}, 2},
		{"two candidates", []Record{worded("core.1", "bugs", "double free"), worded("core.2", "bugs", "invalid pointer"),
			wordlessRecord("a.dmp", "bugs", "SIGABRT", frames, stack, true)}, 3},
		{"a core without words among them", []Record{worded("core.1", "bugs", "double free"),
			wordlessRecord("a.dmp", "bugs", "SIGABRT", frames, stack, true),
			wordlessRecord("core.3", "bugs", "SIGABRT", frames, stack, false)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(0)
			for _, r := range tc.records {
				c.AddRecord(r)
			}
			s := c.Summary()
			if len(s.Buckets) != tc.buckets {
				t.Fatalf("%d buckets, want %d: %+v", len(s.Buckets), tc.buckets, s.Buckets)
			}
			if tc.buckets == 1 {
				b := s.Buckets[0]
				if b.Count != 3 || b.WordsUnknown != 1 || len(b.Cores) != 3 || b.Frames[0] != "abort: double free" {
					t.Errorf("joined bucket: %+v", b)
				}
			}
			// The collector's buckets are its own still: a second
			// summary is the same, and a record added after it counts
			// once.
			if again := c.Summary(); len(again.Buckets) != tc.buckets || again.Buckets[0].Count != s.Buckets[0].Count {
				t.Errorf("second summary: %+v", again.Buckets)
			}
			c.AddRecord(tc.records[0])
			if n := total(c.Summary()); n != len(tc.records)+1 {
				t.Errorf("after one more record the buckets count %d cores, want %d", n, len(tc.records)+1)
			}
		})
	}
}

func total(s *Summary) int {
	n := 0
	for _, b := range s.Buckets {
		n += b.Count
	}
	return n
}

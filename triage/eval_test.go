package triage

import (
	"strings"
	"testing"
)

func evalRecord(core, bucket string, stack ...string) Record {
	return Record{Core: core, Sig: Signature{ID: bucket, Text: bucket, Frames: []string{bucket}, Signal: "SIGSEGV", Program: "p", Stack: stack}}
}

// BCubed by hand: bug x has cores 1-3, bug y cores 4-5; bucket A holds
// 1 and 2, bucket B 3, 4 and 5. Precision per core 1, 1, 1/3, 2/3, 2/3;
// recall 2/3, 2/3, 1/3, 1, 1: both 11/15.
func TestEvaluateBCubed(t *testing.T) {
	labels, err := ParseLabels(strings.NewReader("# bug core\nx cores/c1\nx c2\nx dir/c3\ny c4\ny c5\ny c6\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := NewEvaluator(labels)
	for _, r := range []Record{
		evalRecord("/w/cores/c1", "A", "f", "main"), evalRecord("/w/cores/c2", "A", "f", "main"),
		evalRecord("arch.tar:dir/c3", "B", "f", "main"), evalRecord("/w/c4", "B", "f", "main"), evalRecord("c5", "B", "f", "main"),
		evalRecord("unlabelled", "C", "g"), {Core: "c6", Error: "truncated"},
	} {
		e.Add(r)
	}
	ev := e.Evaluate()
	if ev.Cores != 5 || ev.Bugs != 2 || ev.Buckets != 2 || ev.Unlabelled != 1 || ev.Missing != 1 || ev.Failed != 1 {
		t.Errorf("counts %+v", ev)
	}
	if ev.Precision != 0.7333 || ev.Recall != 0.7333 || ev.F1 != 0.7333 {
		t.Errorf("BCubed P %v R %v F1 %v, want 0.7333 each", ev.Precision, ev.Recall, ev.F1)
	}
	if ev.Partial != 0 || ev.Whole.F1 != ev.F1 || ev.Whole.Cores != 5 {
		t.Errorf("whole cores %+v, partial %d", ev.Whole, ev.Partial)
	}
	if ev.SplitBugs != 1 || ev.MixedBuckets != 1 || ev.Spray != 1 || len(ev.Split) != 1 || ev.Split[0].Bug != "x" || ev.Mixed[0].Bucket != "B" {
		t.Errorf("split %d %+v, mixed %d %+v, spray %d", ev.SplitBugs, ev.Split, ev.MixedBuckets, ev.Mixed, ev.Spray)
	}
	// A and B have the same stack: linked at every threshold, a wrong
	// link (A is mostly x, B mostly y) that still joins x's two buckets.
	lf, ok := ev.At(0.5)
	if !ok || lf.Links != 1 || lf.Correct != 0 || lf.Precision != 0 || lf.SprayRecovered != 1 || lf.Recovered != 1 {
		t.Errorf("links at 0.5: %+v", lf)
	}
	if ev.ChosenThreshold != nil {
		t.Errorf("chose threshold %v for links of precision 0", *ev.ChosenThreshold)
	}
	var b strings.Builder
	if err := WriteEvaluation(&b, ev); err != nil || !strings.Contains(b.String(), "BCubed precision 0.7333  recall 0.7333  F1 0.7333") {
		t.Errorf("text: %v\n%s", err, b.String())
	}
}

func TestParseLabelsErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"bug\n", "line 1: want \"BUG CORE\""},
		{"a c1\n\nb c1\n", "line 3: core \"c1\" labelled twice"},
	} {
		if _, err := ParseLabels(strings.NewReader(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

func FuzzParseLabels(f *testing.F) {
	f.Add("# c\nnull cores/a/core.1\nuaf arch.tar:core.2\n")
	f.Add("x\n")
	f.Fuzz(func(t *testing.T, text string) {
		l, err := ParseLabels(strings.NewReader(text))
		if err != nil {
			return
		}
		for _, name := range l.names {
			if bug, _, ok := l.Bug("/some/dir/" + name); !ok || bug != l.bugOf[name] {
				t.Fatalf("core %q: not found under a directory", name)
			}
		}
	})
}

// Similarity: identical stacks score 1, stacks sharing only frames far
// from the crash score less than stacks sharing the crash site, an
// inlined-away frame costs little.
func TestStackSimilarity(t *testing.T) {
	same := StackSimilarity([]string{"a", "b", "main"}, []string{"a", "b", "main"})
	inlined := StackSimilarity([]string{"a", "b", "c", "main"}, []string{"a", "c", "main"})
	otherCaller := StackSimilarity([]string{"a", "x", "y", "main"}, []string{"a", "b", "c", "main"})
	otherSite := StackSimilarity([]string{"z", "b", "c", "main"}, []string{"a", "b", "c", "main"})
	nothing := StackSimilarity([]string{"a"}, []string{"b"})
	if same != 1 || !(inlined > otherCaller && otherCaller > otherSite && otherSite > nothing) || nothing != 0 {
		t.Errorf("same %v, inlined %v, other caller %v, other site %v, nothing %v", same, inlined, otherCaller, otherSite, nothing)
	}
}

package triage

import (
	"bufio"
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/report"
)

// What became of a frame in a signature (FrameDecision.Use).
const (
	UseSignature   = "signature"    // a meaningful frame of the signature
	UsePrefix      = "prefix"       // kept, not counted toward the depth
	UseSkipped     = "skipped"      // left out; Why says by what
	UseBeyondDepth = "beyond depth" // after the signature's last frame
	UseStandIn     = "stand-in"     // every frame skipped: the top one stands in
)

// FrameDecision is what a signature made of one frame of the crashing
// thread, and why: what `triage --explain` prints.
type FrameDecision struct {
	Index int    `json:"index"` // in the thread
	Name  string `json:"name"`  // normalized
	Use   string `json:"use"`
	Why   string `json:"why"` // the pattern or rules line; "" when Use says all
}

// frameTrace collects decisions; a nil *frameTrace collects nothing (the
// batch path pays nothing for --explain).
type frameTrace []FrameDecision

func (t *frameTrace) add(i int, c frameClass, use, why string) {
	if t == nil {
		return
	}
	*t = append(*t, FrameDecision{Index: i, Name: c.name, Use: use, Why: why})
}

// addListed adds a frame the skip list skipped or made a prefix, with
// the pattern that did: asked only of a trace that collects, as Which
// matches the patterns one by one (the batch signed every core's
// skipped frames that way and threw the answers away: a tenth of a
// batch's CPU).
func (t *frameTrace) addListed(i int, c frameClass, use string, skip *SkipList) {
	if t == nil {
		return
	}
	t.add(i, c, use, c.why(skip))
}

// why says what left a frame out or made it a prefix frame.
func (c frameClass) why(skip *SkipList) string {
	switch {
	case c.rule != "":
		return c.rule
	case c.noModule:
		return "pc in no module"
	case c.moduleSkip:
		return "machinery module: " + skip.Which("", c.module)
	}
	return "skip list: " + skip.Which(c.name, c.module)
}

// Explanation is a signature and how it was made.
type Explanation struct {
	Sig    Signature
	Frames []FrameDecision
	// Words is the crash's own words in the key ("" for none), Replaced
	// says when they replaced the frames (an assertion, a stack overflow's
	// cycle, a Rust panic's location, a Go panic).
	Words    string
	Replaced bool
}

// Explain signs a report and says which frames made the signature and
// which rules skipped the others.
func (s *Signer) Explain(r *report.Report) Explanation {
	var tr frameTrace
	sig := s.sign(r, &tr)
	e := Explanation{Sig: sig, Frames: tr}
	if len(sig.Frames) > 0 {
		if w := crashWords(r.Crash); w != "" && sig.Frames[0] == w {
			e.Words = w
		} else if cf := crashFrames(r); cf != nil {
			e.Words, e.Replaced = cf[0], true
		} else if gf, _ := s.goPanicFrames(r, 1); gf != nil {
			e.Words, e.Replaced = gf[0], true
		}
	}
	return e
}

// WriteExplanation writes an explanation as text.
func WriteExplanation(out io.Writer, core string, e Explanation) error {
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "core:       %s\n", oneLine(core))
	fmt.Fprintf(w, "bucket:     %s (signature algorithm v%d)\n", e.Sig.ID, SignatureVersion)
	fmt.Fprintf(w, "signature:  %s\n", oneLine(e.Sig.Text))
	fmt.Fprintf(w, "program:    %s\n", orNone(e.Sig.Program))
	fmt.Fprintf(w, "signal:     %s\n", orNone(e.Sig.Signal))
	if e.Sig.Fingerprint > 0 {
		fmt.Fprintf(w, "rules:      line %d set the signature\n", e.Sig.Fingerprint)
	}
	if e.Words != "" {
		how := "joined the key before the frames"
		if e.Replaced {
			how = "replaced the frames"
		}
		fmt.Fprintf(w, "crash:      %s (%s)\n", oneLine(e.Words), how)
	}
	fmt.Fprintln(w, "frames of the crashing thread:")
	for _, d := range e.Frames {
		why := ""
		if d.Why != "" {
			why = " (" + oneLine(d.Why) + ")"
		}
		fmt.Fprintf(w, "  #%-3d %-12s %s%s\n", d.Index, d.Use, oneLine(d.Name), why)
	}
	return w.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return oneLine(s)
}

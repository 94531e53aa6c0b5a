package triage

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"

	"github.com/coreunwind/coreunwind/report"
)

// DefaultDepth is how many meaningful frames a signature has by default.
// One frame — the crash site — puts the same bug reached from another
// caller, thread or input into one bucket; deeper signatures split buckets
// by call path.
const DefaultDepth = 1

// Signature is what identifies a crash: the crashing thread's top
// meaningful frames, normalized, and the signal. Prefix frames (strlen,
// memcpy, printf: see DefaultPrefix) are part of it but do not count
// toward the depth.
type Signature struct {
	Frames []string // normalized, crash site first
	Signal string   // "SIGSEGV"; "" when the core records none
	Text   string   // Frames joined with " | "
	ID     string   // 12 hex digits: a hash of Signal and Frames
	// Exact: the rest of the stack cannot change the signature. The
	// frames reached the depth, and every frame up to the last one used
	// was found from registers or unwind information, not by heuristics.
	// A partial core's signature is trusted only when it is exact.
	Exact bool
}

// Signer computes signatures.
type Signer struct {
	Skip  *SkipList // frames to leave out; nil leaves out none
	Depth int       // meaningful frames per signature; <1 means DefaultDepth
}

// Sign computes the signature of a report from its crashing thread (the
// first thread when none is marked crashed). Frames are named by their
// normalized function, or "module+0xOFFSET" (the module's file name and
// the offset of the frame's pc in it) when no symbol is known, or "?" when
// the pc is in no module. If every frame is skipped, the top frame stands
// in: a signature is never empty while the thread has frames.
func (s *Signer) Sign(r *report.Report) Signature {
	depth := s.Depth
	if depth < 1 {
		depth = DefaultDepth
	}
	var sig Signature
	if r.Core.Signal != nil {
		sig.Signal = r.Core.Signal.Name
	}
	if th := crashedThread(r); th != nil {
		sig.Frames, sig.Exact = s.topFrames(th.Frames, depth, nil)
	}
	if cf := crashFrames(r); cf != nil {
		// The crash analysis read it from the core: exact.
		sig.Frames, sig.Exact = cf, true
	} else if gf, exact := s.goPanicFrames(r, depth); gf != nil {
		sig.Frames, sig.Exact = gf, exact
	} else if pf, exact := s.pythonFrames(r, depth); pf != nil {
		sig.Frames, sig.Exact = pf, exact
	}
	if len(sig.Frames) == 0 {
		sig.Frames = []string{"(no frames)"}
	}
	sig.Text = strings.Join(sig.Frames, " | ")
	sig.ID = signatureID(sig.Signal, sig.Frames)
	return sig
}

// topFrames names a stack's first depth meaningful frames: those neither
// the skip list nor also (when not nil) leaves out, prefix frames kept
// without counting. exact: the depth was reached through frames found
// without heuristics. If every frame is left out, the top frame stands in.
func (s *Signer) topFrames(frames []report.Frame, depth int, also func(name string) bool) (names []string, exact bool) {
	first := ""
	counted := 0
	trusted := true
	for i := range frames {
		c := s.frame(&frames[i])
		trusted = trusted && exactTrust[frames[i].Trust]
		if first == "" {
			first = c.name
		}
		if c.skip || (also != nil && also(c.name)) {
			continue
		}
		names = append(names, c.name)
		if c.prefix {
			continue
		}
		if counted++; counted == depth {
			exact = trusted
			break
		}
	}
	if len(names) == 0 && first != "" {
		names = []string{first}
	}
	return names, exact
}

// signatureID hashes the signal and the frames (not the joined text: a
// name containing " | " must not collide with two names).
func signatureID(signal string, frames []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "coreunwind.signature/v1\x00%s", signal)
	for _, f := range frames {
		fmt.Fprintf(h, "\x00%s", f)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// crashedThread returns the thread the signal was delivered to.
func crashedThread(r *report.Report) *report.Thread {
	for i := range r.Threads {
		if r.Threads[i].Crashed {
			return &r.Threads[i]
		}
	}
	if len(r.Threads) > 0 {
		return &r.Threads[0]
	}
	return nil
}

// frame is what a frame contributes to a signature: its normalized
// function name, or where it is when it has none.
func (s *Signer) frame(f *report.Frame) frameClass {
	if f.Function != nil && *f.Function != "" {
		if c := s.Skip.classify(*f.Function); c.name != "" {
			return c
		}
	}
	if f.Module != nil && f.ModuleOffset != nil {
		// The module's file name, not its path: the same library lives
		// in different places on different machines.
		return frameClass{name: fmt.Sprintf("%s+%#x", path.Base(*f.Module), uint64(*f.ModuleOffset))}
	}
	return frameClass{name: "?"}
}

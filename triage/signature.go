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

// SignatureVersion is the version of the signature algorithm: what
// Sign computes from a report for given rules. It changes whenever a
// release changes which cores share a bucket (a new skip pattern, a new
// key part), and the triage JSON carries it: buckets of two versions are
// not compared (see triage.md). Version 1 had no program in the key, kept
// libc's start frames and named no crash words but assertions'.
const SignatureVersion = 2

// Signature is what identifies a crash: the program, the crash's own
// words where they identify the bug (an assertion, an abort message, a
// C++ exception type, a Rust panic's location), the crashing thread's
// top meaningful frames, normalized, and the signal. Prefix frames
// (strlen, memcpy, printf: see DefaultPrefix) are part of it but do not
// count toward the depth.
type Signature struct {
	Frames []string // normalized, crash words then the crash site first
	Signal string   // "SIGSEGV"; "" when the core records none
	// Program is the executable's base name ("" when unknown): two
	// programs crashing in a function of the same name are two bugs.
	Program string `json:",omitempty"`
	Text    string // Frames joined with " | "
	ID      string // 12 hex digits: a hash of Program, Signal and Frames
	// Exact: the rest of the stack cannot change the signature. The
	// frames reached the depth, and every frame up to the last one used
	// was found from registers or unwind information, not by heuristics.
	// A partial core's signature is trusted only when it is exact.
	Exact bool
	// Stack is the crashing thread's first StackDepth meaningful frames
	// (skipped ones left out), crash site first: what similar-bucket
	// links compare.
	Stack []string `json:",omitempty"`
	// Fingerprint is the rules line that set the signature, 0 for none.
	Fingerprint int `json:",omitempty"`
	// WordsUnknown: the crash aborted, and its input cannot hold the
	// words that would sign it (a minidump has none of libc's data,
	// where glibc keeps the abort message): the frames sign it, and the
	// summary joins it to the bucket of the same crash signed by its
	// words (wordless.go).
	WordsUnknown bool `json:",omitempty"`
}

// StackDepth is how many meaningful frames a signature keeps in Stack.
const StackDepth = 16

// Signer computes signatures.
type Signer struct {
	Skip  *SkipList // frames to leave out; nil leaves out none
	Depth int       // meaningful frames per signature; <1 means DefaultDepth
	Rules *Rules    // the user's rules (--rules); nil: none
}

// Sign computes the signature of a report from its crashing thread (the
// first thread when none is marked crashed). Frames are named by their
// normalized function, or "module+0xOFFSET" (the module's file name and
// the offset of the frame's pc in it) when no symbol is known; a frame
// whose pc is in no module is left out (a jump through a bad pointer: its
// address says nothing). If every frame is skipped, the top frame stands
// in: a signature is never empty while the thread has frames.
func (s *Signer) Sign(r *report.Report) Signature {
	return s.sign(r, nil)
}

// sign is Sign, telling trace (when not nil) what became of each frame.
func (s *Signer) sign(r *report.Report, trace *frameTrace) Signature {
	depth := s.Depth
	if depth < 1 {
		depth = DefaultDepth
	}
	var sig Signature
	if r.Core.Signal != nil {
		sig.Signal = r.Core.Signal.Name
	}
	if exe, _ := mainExecutable(r); exe != "" {
		sig.Program = path.Base(exe)
	}
	if th := crashedThread(r); th != nil {
		sig.Frames, sig.Exact = s.traceFrames(th.Frames, depth, nil, trace)
		sig.Stack, _ = s.topFrames(th.Frames, StackDepth, nil)
	}
	if cf := crashFrames(r); cf != nil {
		// The crash analysis read it from the core: exact.
		sig.Frames, sig.Exact = cf, true
	} else if gf, exact := s.goPanicFrames(r, depth); gf != nil {
		sig.Frames, sig.Exact = gf, exact
		// The goroutine's frames outside the runtime, as the key's (a
		// deadlock has no crashed goroutine).
		if g := crashedGoroutine(r); g != nil {
			sig.Stack, _ = s.topFrames(g.Frames, StackDepth, isGoRuntime)
		}
	} else if pf, exact := s.pythonFrames(r, depth); pf != nil {
		sig.Frames, sig.Exact = pf, exact
	} else if w := crashWords(r.Crash); w != "" {
		sig.Frames = append([]string{w}, sig.Frames...)
	} else {
		sig.WordsUnknown = wordsUnreadable(r)
	}
	if len(sig.Frames) == 0 {
		sig.Frames = []string{"(no frames)"}
	}
	sig.Text = strings.Join(sig.Frames, " | ")
	sig.ID = signatureID(sig.Program, sig.Signal, sig.Frames)
	s.Rules.fingerprint(&sig, r)
	return sig
}

// topFrames names a stack's first depth meaningful frames: those neither
// the skip list, the rules nor also (when not nil) leave out, prefix
// frames kept without counting. When the rules mark any frame +app, only
// those are meaningful. exact: the depth was reached through frames found
// without heuristics. If every frame is left out, the top frame stands
// in. trace, when not nil, gets each frame's decision.
func (s *Signer) topFrames(frames []report.Frame, depth int, also func(name string) bool) (names []string, exact bool) {
	return s.traceFrames(frames, depth, also, nil)
}

// traceFrames is topFrames, telling trace (when not nil) what became of
// each frame.
//
// Frames are classified as the walk down the stack reaches them: a
// batch signs every core of a deep stack (a recursion of hundreds of
// frames) by its first few meaningful ones, and classifying the rest
// (their rules, their modules' patterns) was a tenth of signing. Only
// rules that mark frames +app need every frame classified first (one
// marked anywhere makes the others not meaningful), and only a trace
// needs the frames beyond the depth.
func (s *Signer) traceFrames(frames []report.Frame, depth int, also func(name string) bool, trace *frameTrace) (names []string, exact bool) {
	var classes []frameClass
	anyApp := false
	if s.Rules.marksApp() {
		classes = make([]frameClass, len(frames))
		for i := range frames {
			classes[i] = s.frame(&frames[i])
			anyApp = anyApp || classes[i].app > 0
		}
	}
	first := ""
	counted := 0
	trusted := true
	for i := range frames {
		if counted == depth && len(names) > 0 && trace == nil {
			break
		}
		var c frameClass
		if classes != nil {
			c = classes[i]
		} else {
			c = s.frame(&frames[i])
		}
		trusted = trusted && exactTrust[frames[i].Trust]
		if first == "" {
			first = c.name
		}
		if counted == depth {
			trace.add(i, c, UseBeyondDepth, "")
			continue
		}
		switch {
		case c.skip:
			trace.addListed(i, c, UseSkipped, s.Skip)
			continue
		case also != nil && also(c.name):
			trace.add(i, c, UseSkipped, "runtime of the panicking language")
			continue
		case anyApp && c.app <= 0:
			trace.add(i, c, UseSkipped, "not an app frame (rules mark others +app)")
			continue
		case c.app < 0:
			trace.add(i, c, UseSkipped, c.rule)
			continue
		}
		names = append(names, c.name)
		if c.prefix {
			trace.addListed(i, c, UsePrefix, s.Skip)
			continue
		}
		trace.add(i, c, UseSignature, "")
		if counted++; counted == depth {
			exact = trusted
		}
	}
	if len(names) == 0 && first != "" {
		names = []string{first}
		if trace != nil && len(*trace) > 0 {
			(*trace)[0].Use, (*trace)[0].Why = UseStandIn, "every frame is skipped: the top one stands in"
		}
	}
	return names, exact
}

// signatureID hashes the program, the signal and the frames (not the
// joined text: a name containing " | " must not collide with two names).
func signatureID(program, signal string, frames []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "coreunwind.signature/v%d\x00%s\x00%s", SignatureVersion, program, signal)
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
// function name, or where it is when it has none, and whether the skip
// list and the rules leave it out.
func (s *Signer) frame(f *report.Frame) frameClass {
	var c frameClass
	if f.Module != nil {
		// The module's file name, not its path: the same library lives
		// in different places on different machines.
		c.module = path.Base(*f.Module)
	}
	if f.Function != nil && *f.Function != "" {
		module := c.module
		c = s.Skip.classify(*f.Function)
		c.module = module
	}
	if c.name == "" {
		switch {
		case f.Module != nil && f.ModuleOffset != nil:
			c.name = fmt.Sprintf("%s+%#x", c.module, uint64(*f.ModuleOffset))
		default:
			c.name, c.skip, c.noModule = "(no module)", true, true
		}
	}
	if !c.skip && c.module != "" && s.Skip.SkipModule(c.module) {
		c.skip, c.moduleSkip = true, true
	}
	s.Rules.classify(&c)
	return c
}

package triage

import (
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// A core is partial when its crashing thread has frames and its walk
// ended because a read hit memory that the core's program headers say was
// dumped but that the file lacks: the error wraps both
// unwind.ErrUnavailable and corefile.ErrTruncated. Such a core was cut
// short (a core size limit, a broken copy or decompression) inside the
// crashing thread's stack; its stack is the top of the real one, and its
// signature may be one the crash does not have (often a lone strlen or
// abort frame).
//
// Walks that stop on memory missing for other reasons are not partial: a
// smashed stack or a wild frame pointer reads memory that was never
// mapped, and that stack is the crash's own, to be bucketed. Neither is a
// truncated core whose walk ended normally: the cut missed the stack.
//
// partialReason returns why th makes its core partial, or "" when it
// does not.
func partialReason(th *report.Thread) string {
	if th == nil || len(th.Frames) == 0 || th.Err == nil {
		return ""
	}
	if !errors.Is(th.Err, unwind.ErrUnavailable) || !errors.Is(th.Err, corefile.ErrTruncated) {
		return ""
	}
	n := physicalFrames(th)
	s := "s"
	if n == 1 {
		s = ""
	}
	return fmt.Sprintf("core truncated inside the crashing thread's stack: walk stopped after %d frame%s: %v", n, s, th.Err)
}

// physicalFrames counts th's frames without the inlined calls (which
// share their frame's pc).
func physicalFrames(th *report.Thread) int {
	n := 0
	for _, f := range th.Frames {
		if !f.Inlined {
			n++
		}
	}
	return n
}

// exactTrust is how a frame found without heuristics was found: from the
// core's registers or from unwind information. Such a frame of a partial
// walk is the one a complete core gives. A frame-pointer or stack-scan
// frame may not be: the heuristics step in where unwind information
// failed, and in a truncated core it fails for want of memory.
var exactTrust = map[string]bool{
	unwind.TrustContext.String():     true,
	unwind.TrustCFI.String():         true,
	unwind.TrustUnwindTable.String(): true,
	unwind.TrustDynamic.String():     true,
	// Proven by the compiler's call-site records, read from the
	// binaries, not from the stack a truncated core may lack.
	report.TrustTailCall: true,
}

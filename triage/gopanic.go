package triage

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/coreunwind/coreunwind/report"
)

// goPanicFrames is the signature of a Go program that panicked: the
// panic's kind, then the crashed goroutine's first depth frames outside
// the Go runtime. The runtime's frames (mapassign_faststr, panicmem,
// gopanic) say how Go reported the bug, which the kind already says; the
// first user frame says where it is. nil when the report has no crashed
// goroutine or no panic value for it (a fatal error, a signal, a
// program that is not Go): the thread's frames decide then.
func (s *Signer) goPanicFrames(r *report.Report, depth int) ([]string, bool) {
	if r.Crash != nil && r.Crash.Kind == report.KindGoFatalError {
		return s.goFatalFrames(r, depth)
	}
	g := crashedGoroutine(r)
	if g == nil || len(g.Frames) == 0 || r.Crash == nil {
		return nil, false
	}
	msg, ok := goPanicValue(r.Crash.Details, g.ID)
	if !ok {
		return nil, false
	}
	frames, exact := s.topFrames(g.Frames, depth, isGoRuntime)
	return append([]string{"panic: " + NormalizeGoPanic(msg)}, frames...), exact
}

// goFatalFrames is the signature of a Go program's fatal error
// ("fatal error: concurrent map writes"): the error, then the first
// depth frames outside the Go runtime of the crashed goroutine (of the
// crashed thread when none ran there: a deadlock is found by the
// scheduler, on no goroutine). The runtime's frames are left out, and
// where none are left the error alone is the signature: exact.
func (s *Signer) goFatalFrames(r *report.Report, depth int) ([]string, bool) {
	head := []string{NormalizeGoPanic(r.Crash.Summary)}
	var frames []report.Frame
	if g := crashedGoroutine(r); g != nil {
		frames = g.Frames
	} else if th := crashedThread(r); th != nil {
		frames = th.Frames
	}
	var names []string
	exact := true
	if frames != nil {
		names, exact = s.topFrames(frames, depth, isGoFatalMachinery)
		if len(names) > 0 && isGoFatalMachinery(names[0]) {
			names, exact = nil, true // only the runtime's own frames
		}
	}
	return append(head, names...), exact
}

// isGoFatalMachinery: the runtime, and the standard library's sync,
// whose own fatal errors (a mutex unlocked twice) it raises for the
// caller's bug.
func isGoFatalMachinery(name string) bool {
	return isGoRuntime(name) || strings.HasPrefix(name, "internal/sync.") || strings.HasPrefix(name, "sync.")
}

// crashedGoroutine is the goroutine running on the crashed thread.
func crashedGoroutine(r *report.Report) *report.Goroutine {
	for i := range r.Goroutines {
		if r.Goroutines[i].Crashed {
			return &r.Goroutines[i]
		}
	}
	return nil
}

// goPanicValue finds, among a crash's details, the value goroutine id
// panicked with: the analysis says "goroutine ID panicked: VALUE".
func goPanicValue(details []string, id uint64) (string, bool) {
	head := "goroutine " + strconv.FormatUint(id, 10) + " panicked: "
	for _, d := range details {
		if msg, ok := strings.CutPrefix(d, head); ok {
			return msg, true
		}
	}
	return "", false
}

// isGoRuntime reports whether a normalized function name is the Go
// runtime's: its machinery between the bug and the crash.
func isGoRuntime(name string) bool {
	return strings.HasPrefix(name, "runtime.") ||
		strings.HasPrefix(name, "runtime/internal/") ||
		strings.HasPrefix(name, "internal/runtime/")
}

// panicNumberRE matches the numbers a panic value carries (indexes,
// lengths, addresses): whole words only, so type names such as int64
// keep their digits. Compiled on first use.
var panicNumberRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:0[xX][0-9a-fA-F]+|[0-9]+)\b`)
})

// NormalizeGoPanic keeps what identifies a Go panic across cores: its
// message with numbers replaced by N and addresses by 0xN ("runtime
// error: index out of range [N] with length N"), so the same bug hit
// with other values or at another address is one bucket.
func NormalizeGoPanic(msg string) string {
	if len(msg) > maxNameLen {
		msg = msg[:maxNameLen]
	}
	msg = strings.TrimSpace(msg)
	return panicNumberRE().ReplaceAllStringFunc(msg, func(n string) string {
		if len(n) > 1 && (n[1] == 'x' || n[1] == 'X') {
			return "0xN"
		}
		return "N"
	})
}

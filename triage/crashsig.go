package triage

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/coreunwind/coreunwind/report"
)

// crashFrames is the signature a report's crash analysis gives, as
// Socorro's signature rules do for the crashes whose frames say little:
// a stack overflow buckets by its recursion cycle (wherever in the cycle
// the stack ran out), a failed assertion by its message (the same assert
// reached from anywhere is one bug), a Rust panic by its location. nil
// when the frames decide.
func crashFrames(r *report.Report) []string {
	c := r.Crash
	if c == nil {
		return nil
	}
	switch {
	case c.Kind == "stack_overflow" && len(c.Recursion) > 0:
		names := make([]string, len(c.Recursion))
		for i, n := range c.Recursion {
			names[i] = NormalizeFunction(n)
		}
		return []string{"stack overflow: " + strings.Join(names, " -> ")}
	case c.Kind == "assertion" && c.AbortMessage != nil:
		return []string{"assertion: " + NormalizeAssertion(*c.AbortMessage)}
	case c.PanicLocation != nil && *c.PanicLocation != "":
		// A Rust panic's location is where the bug is, whichever caller
		// reached it and whatever the panic's message says (its values).
		return []string{"panic at " + panicLocation(*c.PanicLocation)}
	}
	return nil
}

// assertRE is glibc's assertion message: "PROG: FILE:LINE: FUNCTION:
// Assertion `EXPR' failed." (PROG is argv[0]'s base name, FUNCTION may be
// absent). Compiled on first use, not at every run's start.
var assertRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^(?:[^:\n]*: )?([^:\n]+):([0-9]+): (.*)$")
})

// NormalizeAssertion keeps what identifies an assertion across builds
// and machines: the source file's base name, the function and the
// expression; not the program's name (how it was invoked), the source
// directory (where it was built) or the line (edits above it move it).
func NormalizeAssertion(msg string) string {
	msg = strings.TrimSpace(msg)
	if len(msg) > maxNameLen {
		msg = msg[:maxNameLen]
	}
	m := assertRE().FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	return path.Base(m[1]) + ": " + m[3]
}

package triage

import (
	"path"
	"strings"

	"github.com/coreunwind/coreunwind/report"
)

// crashWords is what the crash analysis read from the core that
// identifies the bug better than the frames do, and joins the key before
// them: a glibc abort message ("free(): double free detected in tcache
// N"), the type of the C++ exception that reached std::terminate. ""
// when there is none; assertions, stack overflows and Rust panics with a
// location replace the frames instead (crashFrames).
func crashWords(c *report.Crash) string {
	switch {
	case c == nil:
		return ""
	case c.Kind == "assertion" || c.Kind == "stack_overflow":
		return "" // crashFrames
	case c.PanicLocation != nil:
		return "" // crashFrames
	case c.ExceptionType != nil && *c.ExceptionType != "":
		return "exception: " + NormalizeFunction(*c.ExceptionType)
	case c.AbortMessage != nil && *c.AbortMessage != "":
		return "abort: " + NormalizeMessage(*c.AbortMessage)
	}
	return ""
}

// NormalizeMessage keeps what identifies an abort message across cores:
// numbers, addresses and pointers are replaced (by N and 0xN), so that the
// same failure on another chunk or size is one bucket.
func NormalizeMessage(msg string) string {
	// Go panic values need the same replacement: one copy of it.
	return NormalizeGoPanic(msg)
}

// panicLocation is a Rust panic's location as a key: the source file's
// base name (the directory is where it was built, or the cargo registry's
// path on one machine), its line and column.
func panicLocation(loc string) string {
	loc = strings.TrimSpace(loc)
	if len(loc) > maxNameLen {
		loc = loc[:maxNameLen]
	}
	return path.Base(loc)
}

// keyWordPrefixes start the key's first frame when it is the crash's
// words (crashWords, crashFrames, goPanicFrames) rather than a function.
var keyWordPrefixes = []string{"abort: ", "exception: ", "assertion: ", "stack overflow: ", "panic at ", "panic: "}

// keyWords returns a signature's crash words, "" when its frames have
// none.
func keyWords(frames []string) string {
	if len(frames) == 0 {
		return ""
	}
	for _, p := range keyWordPrefixes {
		if strings.HasPrefix(frames[0], p) {
			return frames[0]
		}
	}
	return ""
}

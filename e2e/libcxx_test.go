package e2e

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// libcxxTerminated is the line libc++abi's terminate handler prints for
// an uncaught exception derived from std::exception: the words after
// "libc++abi: ", the type and what().
var libcxxTerminated = regexp.MustCompile(`(?m)^libc\+\+abi: (terminating (?:with|due to) uncaught exception of type (.+?): (.*))$`)

// TestCxxExceptionLibcxx: uncaught exceptions of what.cc built with
// clang and LLVM's libc++ (whose libc++abi hides its terminate machinery
// and keeps its exception globals behind a pthread key): the report's
// exception type and what() are the ones libc++abi's terminate handler
// printed, and its exception: line is that line. A std::runtime_error,
// a std::logic_error subclass and a std::runtime_error subclass hold
// their message (read from the object); a std::exception subclass and a
// class overriding what() do not (read from the handler's arguments).
func TestCxxExceptionLibcxx(t *testing.T) {
	t.Parallel()
	lib := testenv.NeedLibCxx(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "what-libcxx")
	src := filepath.Join(repoRoot, "e2e", "testdata", "progs", "what.cc")
	testenv.Build(t, "clang++-14", append([]string{"-g", "-O1", "-o", exe, src}, lib.Flags()...)...)
	for _, tc := range []struct {
		arg string
		// fromHandler: what() is not the message the object holds.
		fromHandler bool
	}{
		{arg: "runtime"},
		{arg: "invalid"},
		{arg: "custom"},
		{arg: "audit", fromHandler: true},
		{arg: "own-what", fromHandler: true},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			c := crashProgram(t, exe, nil, tc.arg)
			m := libcxxTerminated.FindStringSubmatch(c.Output)
			if m == nil {
				t.Fatalf("libc++abi printed no terminate line:\n%s", c.Output)
			}
			_, ci := crashJSON(t, c.Core, exe)
			cr := ci.Crash
			if cr.Kind != "uncaught_exception" {
				t.Errorf("kind %q, want uncaught_exception (%s)", cr.Kind, cr.Summary)
			}
			if cr.ExceptionType == nil || *cr.ExceptionType != m[2] {
				t.Errorf("exception type %v; libc++abi printed:\n%s", strptr(cr.ExceptionType), c.Output)
			}
			if cr.ExceptionMessage == nil || *cr.ExceptionMessage != m[3] {
				t.Errorf("exception message %v (details %q); libc++abi printed:\n%s", strptr(cr.ExceptionMessage), cr.Details, c.Output)
			}
			if want := "libc++abi: " + m[1]; cr.TerminateMessage == nil || *cr.TerminateMessage != want {
				t.Errorf("terminate message %v, want %q", strptr(cr.TerminateMessage), want)
			}
			handler := slices.ContainsFunc(cr.Details, func(d string) bool { return strings.Contains(d, "libc++abi's terminate handler got") })
			if handler != tc.fromHandler {
				t.Errorf("message from the terminate handler's arguments = %v, want %v (details %q)", handler, tc.fromHandler, cr.Details)
			}
			if !strings.HasPrefix(cr.Summary, "uncaught C++ exception of type "+m[2]+", thrown by shop::withdraw") {
				t.Errorf("summary %q", cr.Summary)
			}
			checkTextHeader(t, c, cr.Summary, "exception:   libc++abi: "+m[1])
		})
	}
}

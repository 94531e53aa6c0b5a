package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestDebugFileFIFONamed: a named pipe where a stripped program's debug
// file is looked for (its build-ID path and its .gnu_debuglink name in
// --debug-dir) is passed over at once, and the "Missing separate
// debuginfo" warning names it as a rejected candidate. (--unwind-only
// names no functions, so it gives no such warning.)
func TestDebugFileFIFONamed(t *testing.T) {
	t.Parallel()
	exe := privateCopy(t, buildProgram(t, "null-stripped-buildid"))
	id := buildID(t, exe)
	debugDir := filepath.Join(t.TempDir(), "debug")
	byID := filepath.Join(debugDir, ".build-id", id[:2], id[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(byID), 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.Mkfifo(t, byID)
	c := crashProgram(t, exe, nil)
	const refused = ": not a regular file (named pipe)"
	rep, _ := unwindJSON(t, []string{"--debug-dir", debugDir}, c.Core, exe)
	if n := countWarningsWith(rep.Warnings, "Missing separate debuginfo for "+exe+":", byID+refused); n != 1 {
		t.Errorf("%d warnings name the missing debug file and the named pipe %s, want 1:\n%s", n, byID, strings.Join(rep.Warnings, "\n"))
	}
}

package e2e

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// A crash is a program that died with a core dump.
type crash struct {
	Dir  string // the working directory the program ran in
	Exe  string // the executable that crashed
	Core string // the core the kernel wrote
	// Output is what the program printed (stdout and stderr) before it
	// died: glibc's and libstdc++'s own words about the crash.
	Output string
}

// crashProgram runs exe with args in a fresh temporary directory
// (testenv.CrashIn) and returns the core it leaves there.
func crashProgram(t *testing.T, exe string, env []string, args ...string) crash {
	t.Helper()
	dir := t.TempDir()
	core, out := testenv.CrashIn(t, dir, exe, env, args...)
	return crash{Dir: dir, Exe: exe, Core: core, Output: string(out)}
}

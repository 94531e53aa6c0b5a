package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// isolatedEnv marks the child process of InChild.
const isolatedEnv = "COREUNWIND_TEST_IN_CHILD"

// InChild runs the calling test again in a child process and fails t if
// the child fails or dies, so that a test whose regression kills the
// process (a fatal SIGBUS) reports a failure instead of ending the test
// binary. It returns true in the child, which then does the test's work,
// and false in the parent, which then returns.
//
//	if !testenv.InChild(t) {
//		return
//	}
//	... the work that could kill the process ...
func InChild(t *testing.T) bool {
	t.Helper()
	if os.Getenv(isolatedEnv) == t.Name() {
		return true
	}
	// A regression may hang the child as well as kill it: bounded.
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1", "-test.timeout=3m")
	cmd.Env = append(os.Environ(), isolatedEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("in a child process: %v\n%s", err, out)
	}
	return false
}

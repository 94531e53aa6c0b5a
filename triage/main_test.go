package triage_test

import (
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestMain runs the tests in a TMPDIR of their own, checked for
// leftover temporary files: a batch must leave none behind. Run as a
// helper process (see interruptedBatch), the binary is a batch instead.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		interruptedBatch()
		return
	}
	os.Exit(testenv.RunCheckingTemp(m))
}

package gopclntab

import (
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestMain runs the tests in a TMPDIR of their own, removed afterwards:
// the programs built once per run (os.MkdirTemp in a sync.Once, which no
// t.Cleanup can remove) stayed in /tmp, a few MB each run, before.
func TestMain(m *testing.M) {
	os.Exit(testenv.RunCheckingTemp(m))
}

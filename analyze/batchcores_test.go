package analyze

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// crashTimes crashes exe n times, each in a directory of its own under
// dir, and returns the cores: a batch's cores of one executable, for the
// tests of what a batch reads once per binary.
func crashTimes(t *testing.T, dir, exe string, n int, env []string) []string {
	t.Helper()
	var cores []string
	for i := range n {
		d := filepath.Join(dir, string(rune('a'+i)))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		core, _ := testenv.CrashIn(t, d, exe, env)
		cores = append(cores, core)
	}
	return cores
}

package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/tempname"
)

// RunCheckingTemp runs a package's tests (m.Run) with TMPDIR set to a new
// empty directory, and fails the run when anything named coreunwind-*
// (the temporary files and directories coreunwind makes) is left there:
// every run must clean up after itself. A package's TestMain calls it in
// place of m.Run; the directory is removed afterwards either way, and
// named like coreunwind's own so that, should the test binary die (a
// test timeout panics it), the next run sweeps it.
func RunCheckingTemp(m *testing.M) int {
	tempname.SweepStale("", time.Now())
	code := 0
	err := tempname.InPrivateDir("test", func(dir string) error {
		code = m.Run()
		if left := LeftTemp(dir); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: the tests left coreunwind's temporary files in TMPDIR: %s\n", strings.Join(left, " "))
			if code == 0 {
				code = 1
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 1
	}
	return code
}

// LeftTemp lists what coreunwind left in dir: entries named coreunwind-*.
func LeftTemp(dir string) []string {
	left, _ := filepath.Glob(filepath.Join(dir, tempname.Prefix+"*"))
	return left
}

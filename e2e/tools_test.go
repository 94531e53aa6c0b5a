package e2e

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// inCI reports whether missing tools must fail tests rather than skip them.
func inCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

// requireTool returns the path of an external tool. When it is missing the
// test fails under CI=true (CI machines must have it) and is skipped
// elsewhere, with the reason.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if inCI() {
			t.Fatalf("%s is required under CI=true but not found in PATH", name)
		}
		t.Skipf("%s not found in PATH (install it to run this test)", name)
	}
	return p
}

var corePatternOnce = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	return strings.TrimSpace(string(b)), err
})

// requireCorePattern fails unless the kernel writes cores as "core" in the
// crashing process's working directory, which every crash test relies on.
func requireCorePattern(t *testing.T) {
	t.Helper()
	p, err := corePatternOnce()
	if err != nil {
		t.Fatalf("reading core_pattern: %v", err)
	}
	if p != "core" {
		t.Fatalf("/proc/sys/kernel/core_pattern is %q; these tests need \"core\" "+
			"(run: echo core > /proc/sys/kernel/core_pattern)", p)
	}
}

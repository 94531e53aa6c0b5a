package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Shared state for one run of the test binary, set up by TestMain.
var (
	// workDir holds the coreunwind binary and the programs built once per run.
	workDir string
	// repoRoot is the module root (the parent of this package's directory).
	repoRoot string
	// coreunwindBin is the freshly built command; coreunwindErr says why it
	// could not be built, in which case every test that needs it fails.
	coreunwindBin string
	coreunwindErr error
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	var err error
	workDir, err = os.MkdirTemp("", "coreunwind-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(workDir)
	// The commands' symbol cache goes to the run's directory, not the
	// user's ~/.cache.
	os.Setenv("XDG_CACHE_HOME", filepath.Join(workDir, "cache"))
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	repoRoot = filepath.Dir(wd)
	coreunwindBin = filepath.Join(workDir, "coreunwind")
	cmd := exec.Command(goTool(), append(append([]string{"build"}, buildFlags()...), "-o", coreunwindBin, "./cmd/coreunwind")...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgoEnabled())
	if out, err := cmd.CombinedOutput(); err != nil {
		coreunwindErr = fmt.Errorf("go build ./cmd/coreunwind: %v\n%s", err, strings.TrimSpace(string(out)))
	}
	return m.Run()
}

// goTool returns the go command that runs this test, falling back to PATH.
func goTool() string {
	p := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(p); err == nil && os.Getenv("GOROOT") != "" {
		return p
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "/usr/local/go/bin/go"
}

// needCoreunwind fails the test when the command could not be built: a
// missing command is a failure of the product, never a reason to skip.
func needCoreunwind(t *testing.T) {
	t.Helper()
	if coreunwindErr != nil {
		t.Fatalf("coreunwind is not available: %v", coreunwindErr)
	}
}

// buildFlags are extra flags for building coreunwind:
// COREUNWIND_E2E_BUILDFLAGS="-race" runs the whole suite against a
// race-detector build.
func buildFlags() []string {
	return strings.Fields(os.Getenv("COREUNWIND_E2E_BUILDFLAGS"))
}

// cgoEnabled is the CGO_ENABLED the command is built with: off, as the
// README builds it (a static binary starts without the dynamic loader),
// except for the race detector, which needs cgo.
func cgoEnabled() string {
	if slices.Contains(buildFlags(), "-race") {
		return "1"
	}
	return "0"
}

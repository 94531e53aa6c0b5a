package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The pattern systemd-coredump installs: test.sh must put it back, or
// the machine stops collecting crashes after a test run.
const coredumpPattern = "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h"

// corePatternRun is what runCorePatternScript saw: the script's standard
// output, its exit error, and core_pattern once the shell had exited.
type corePatternRun struct {
	stdout, after string
	err           error
}

// runCorePatternScript runs script in sh after sourcing core-pattern.sh,
// with the kernel's core_pattern replaced by a file holding initial.
func runCorePatternScript(t *testing.T, initial, script string) corePatternRun {
	t.Helper()
	file := filepath.Join(t.TempDir(), "core_pattern")
	if err := os.WriteFile(file, []byte(initial+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := filepath.Abs("core-pattern.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "set -eu; . "+lib+"; "+script)
	cmd.Env = append(os.Environ(), "COREUNWIND_CORE_PATTERN_FILE="+file)
	out, runErr := cmd.Output()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return corePatternRun{stdout: string(out), after: strings.TrimSuffix(string(b), "\n"), err: runErr}
}

// TestCorePatternRestored: test.sh sets core_pattern to "core" for the
// tests and restores the machine's pattern when it exits, whether the
// tests pass, fail (set -e) or the run is interrupted.
func TestCorePatternRestored(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		wantErr      bool
	}{
		{"success", `core_pattern_for_tests; cat "$COREUNWIND_CORE_PATTERN_FILE"`, false},
		{"failure", `core_pattern_for_tests; cat "$COREUNWIND_CORE_PATTERN_FILE"; false`, true},
		{"interrupted", `core_pattern_for_tests; cat "$COREUNWIND_CORE_PATTERN_FILE"; kill -TERM $$; sleep 10`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCorePatternScript(t, coredumpPattern, tc.script)
			if (r.err != nil) != tc.wantErr {
				t.Errorf("exit error %v, want error: %v", r.err, tc.wantErr)
			}
			if got := strings.TrimSpace(r.stdout); got != "core" {
				t.Errorf("core_pattern during the run = %q, want \"core\"", got)
			}
			if r.after != coredumpPattern {
				t.Errorf("core_pattern after the run = %q, want the machine's %q back", r.after, coredumpPattern)
			}
		})
	}
}

// TestCorePatternAlreadyCore: a machine already writing "core" is left
// as it is.
func TestCorePatternAlreadyCore(t *testing.T) {
	r := runCorePatternScript(t, "core", `core_pattern_for_tests; cat "$COREUNWIND_CORE_PATTERN_FILE"`)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if strings.TrimSpace(r.stdout) != "core" || r.after != "core" {
		t.Errorf("during %q, after %q; want core both", r.stdout, r.after)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestSpecialFileInputs: a named pipe wherever coreunwind reads a file
// (named on the command line, through a symbolic link, found in
// --binaries or at a build-ID path under --debug-dir) is refused or
// passed over at once, never waited on: open(2) of a FIFO blocks until a
// writer comes. What was named on the command line is an error that
// says what the file is; a file found by searching is passed over and
// the core is still analyzed. The shipped segv-static core is the input
// (its executable's build ID is 0e3cc025...).
func TestSpecialFileInputs(t *testing.T) {
	shipped, err := filepath.Abs(filepath.Join("..", "..", "testdata", "cores", "segv-static"))
	if err != nil {
		t.Fatal(err)
	}
	core, exe := filepath.Join(shipped, "core"), filepath.Join(shipped, "segv")
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	testenv.Mkfifo(t, fifo)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	// --binaries DIR: the executable's name links to the FIFO.
	bins := filepath.Join(dir, "bins")
	mustMkdir(t, bins)
	if err := os.Symlink(fifo, filepath.Join(bins, "segv")); err != nil {
		t.Fatal(err)
	}
	cores := filepath.Join(dir, "cores")
	mustMkdir(t, cores)
	if err := os.WriteFile(filepath.Join(cores, "core"), mustRead(t, core), 0o644); err != nil {
		t.Fatal(err)
	}
	// --debug-dir DIR: a FIFO where the executable's debug file would be.
	debugDir := filepath.Join(dir, "debug")
	buildIDPath := filepath.Join(debugDir, ".build-id", "0e", "3cc0250e4cfbb90d48c8190664eb47a5cfa3c9.debug")
	mustMkdir(t, filepath.Dir(buildIDPath))
	testenv.Mkfifo(t, buildIDPath)

	const refused = "not a regular file (named pipe)"
	for _, c := range []struct {
		name   string
		args   []string
		codes  []int  // any of these
		output string // in stdout or stderr ("" = anything)
	}{
		{"core", []string{fifo, exe}, []int{exitcode.NoCore}, fifo + ": " + refused},
		{"core-symlink", []string{link, exe}, []int{exitcode.NoCore}, link + ": " + refused},
		{"executable", []string{core, fifo}, []int{exitcode.OK, exitcode.Partial}, fifo + ": " + refused},
		{"pprof", []string{"--format", "pprof", core, fifo}, []int{exitcode.NoCore}, fifo + ": " + refused},
		{"tables", []string{"tables", fifo}, []int{exitcode.NoCore}, fifo + ": " + refused},
		{"triage", []string{"triage", fifo}, []int{exitcode.NoCore}, fifo + ": " + refused},
		{"triage-symlink", []string{"triage", link}, []int{exitcode.NoCore}, link + ": " + refused},
		{"skip-frames", []string{"triage", "--skip-frames", fifo, cores}, []int{exitcode.Usage}, fifo + ": " + refused},
		{"binaries", []string{"triage", "--binaries", bins, cores}, []int{exitcode.OK, exitcode.Partial}, "1 analyzed"},
		{"debug-dir", []string{"--debug-dir", debugDir, core, exe}, []int{exitcode.OK}, "segv.c:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			testenv.NoHang(t, 20*time.Second, "coreunwind "+strings.Join(c.args, " "), func() {
				code, stdout, stderr := runCLI(c.args...)
				if !containsInt(c.codes, code) {
					t.Errorf("exit %d, want one of %v; stderr:\n%s", code, c.codes, stderr)
				}
				if !strings.Contains(stdout+stderr, c.output) {
					t.Errorf("output does not say %q; stdout:\n%s\nstderr:\n%s", c.output, stdout, stderr)
				}
			}, fifo, buildIDPath)
		})
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// openTerminal returns the follower side of a new pseudo-terminal: a
// stdout that isTerminal must recognize.
func openTerminal(t *testing.T) *os.File {
	t.Helper()
	leader, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		testenv.Unavailable(t, fmt.Sprintf("no pseudo-terminal: %v", err))
	}
	t.Cleanup(func() { leader.Close() })
	if err := unix.IoctlSetPointerInt(int(leader.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(leader.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	follower, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { follower.Close() })
	return follower
}

// --format pprof with no -o and a terminal for stdout is refused (a
// usage error, nothing written); to a file or a pipe it is written.
func TestPprofNotToTerminal(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "abrt", crashC, "-O0", "-g")
	core, _ := testenv.Crash(t, exe)
	tty := openTerminal(t)
	for _, args := range [][]string{
		{"--format", "pprof", core, exe},
		{"triage", "--format", "pprof", core},
	} {
		var stderr strings.Builder
		code := run(args, tty, &stderr)
		if code != exitcode.Usage || !strings.Contains(stderr.String(), "-o FILE") {
			t.Errorf("%q to a terminal: exit %d, stderr %q", args, code, stderr.String())
		}
		out := filepath.Join(dir, "p.pb.gz")
		var errs strings.Builder
		if code := run(append(args, "-o", out), tty, &errs); code != exitcode.OK {
			t.Errorf("%q -o FILE: exit %d: %s", args, code, errs.String())
		}
		if b := mustRead(t, out); len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%q -o FILE: not a gzip profile", args)
		}
		if code, stdout, stderr := runCLI(args...); code != exitcode.OK || !strings.HasPrefix(stdout, "\x1f\x8b") {
			t.Errorf("%q to a pipe: exit %d: %s", args, code, stderr)
		}
	}
}

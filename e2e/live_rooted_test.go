package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestLiveRooted: coreunwind -p on a process in a chroot: its
// executable, loader and C library are at paths only its root has
// (/prog, /rt/ld.so, /rt/libc.so.6: liverooted is liveproc linked to
// look for them there). /proc/PID/maps names them as coreunwind sees
// them (the chroot's directory and /rt/libc.so.6 under it), so they are
// not to be looked for under /proc/PID/root, which is the chroot: they
// were, and none was found. The library copies have no build ID, so
// that nothing finds the host's files in their place. Every module is
// found, and every thread's frames are the known ones.
func TestLiveRooted(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		testenv.Unavailable(t, "chroot needs root")
	}
	exe := buildProgram(t, "liverooted")
	root := t.TempDir()
	copyInto := func(from, to string) {
		t.Helper()
		real, err := filepath.EvalSymlinks(from)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(real)
		if err != nil {
			t.Fatal(err)
		}
		to = filepath.Join(root, to)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyInto(exe, "prog")
	copyInto("/lib64/ld-linux-x86-64.so.2", "rt/ld.so")
	copyInto("/lib/x86_64-linux-gnu/libc.so.6", "rt/libc.so.6")
	objcopy := testenv.NeedTool(t, "objcopy")
	for _, lib := range []string{"rt/ld.so", "rt/libc.so.6"} {
		if out, err := exec.Command(objcopy, "--remove-section=.note.gnu.build-id", filepath.Join(root, lib)).CombinedOutput(); err != nil {
			t.Fatalf("objcopy %s: %v\n%s", lib, err, out)
		}
	}
	cmd := exec.Command("/prog", "nospin")
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root}
	cmd.Dir = "/"
	lt := startLiveCmd(t, filepath.Join(root, "prog"), cmd, false)
	rep := lt.liveReport(t)
	lt.checkRunning(t, 2*time.Second)
	var paths []string
	for _, m := range rep.Modules {
		paths = append(paths, m.Path)
		if !m.Found {
			t.Errorf("module %s not found", m.Path)
		}
	}
	for _, want := range []string{"/rt/libc.so.6", "/rt/ld.so"} {
		found := false
		for _, p := range paths {
			found = found || strings.HasSuffix(p, want)
		}
		if !found {
			t.Errorf("no module %s among %q", want, paths)
		}
	}
	checkKnownPoint(t, lt, rep, false)
}

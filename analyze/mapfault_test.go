package analyze

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestObjectTruncatedDuringAnalysis: a batch's shared objects (one per
// build ID) keep a binary mapped from core to core; truncating it in
// place (an upgrade during a triage run) made the next read of its tables
// raise SIGBUS, and the whole batch died. Now the core whose analysis
// reads it fails with an error naming the file, and the process goes on.
// The core's executable is another copy of the same build, which the
// cache resolves to the object already open. In a child process: a
// regression kills it.
func TestObjectTruncatedDuringAnalysis(t *testing.T) {
	if !testenv.InChild(t) {
		return
	}
	core, exe, copyOf, objs := crashWithCachedCopy(t)
	c, err := corefile.Open(core, corefile.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := os.Truncate(copyOf, 0); err != nil {
		t.Fatal(err)
	}
	_, err = AnalyzeCore(c, Options{Objects: objs, Executable: exe})
	if !errors.Is(err, ErrFileChanged) || !strings.Contains(err.Error(), copyOf) {
		t.Errorf("analysis reading a truncated object: %v, want ErrFileChanged naming %s", err, copyOf)
	}
}

// crashWithCachedCopy crashes a program and opens another copy of its
// executable in a new object cache: the cache resolves the core's
// executable, the same build, to that object, which the caller then
// truncates.
func crashWithCachedCopy(t *testing.T) (core, exe, copyOf string, objs *elfx.Cache) {
	t.Helper()
	dir := t.TempDir()
	exe = testenv.BuildC(t, dir, "deep", benchProg, "-O0", "-g")
	core, _ = testenv.Crash(t, exe)
	copyOf = filepath.Join(dir, "deep.copy")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyOf, b, 0o755); err != nil {
		t.Fatal(err)
	}
	objs = elfx.NewCache()
	t.Cleanup(func() { objs.Close() })
	if _, err := objs.Open(copyOf, nil); err != nil {
		t.Fatal(err)
	}
	return core, exe, copyOf, objs
}

// sessionOverTruncatedObject opens a Session on a crashed program's
// core whose executable, an object a shared cache opened before, has
// been truncated since; it returns the session and the truncated file.
func sessionOverTruncatedObject(t *testing.T) (*Session, string) {
	core, exe, copyOf, objs := crashWithCachedCopy(t)
	s, err := Open(core, Options{Objects: objs, Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := os.Truncate(copyOf, 0); err != nil {
		t.Fatal(err)
	}
	return s, copyOf
}

// TestSessionObjectTruncatedDuringWalk: a library user walking a stack
// with a Session (Cursor, then Step) over an object truncated since it
// was opened gets an error wrapping ErrFileChanged from Step, naming the
// file, instead of a fatal SIGBUS. In a child process: a regression
// kills it.
func TestSessionObjectTruncatedDuringWalk(t *testing.T) {
	if !testenv.InChild(t) {
		return
	}
	s, truncated := sessionOverTruncatedObject(t)
	cur, err := s.Cursor(s.Core.Threads[0].TID, 0)
	if err == nil {
		for {
			var more bool
			if more, err = cur.Step(); !more {
				break
			}
		}
	}
	if !errors.Is(err, ErrFileChanged) || !strings.Contains(err.Error(), truncated) {
		t.Errorf("a walk reading a truncated object: %v, want ErrFileChanged naming %s", err, truncated)
	}
}

// TestSessionAddrSpaceObjectTruncated: the Session's AddrSpace, asked
// for the unwind info of the crashed pc in an object truncated since it
// was opened, returns an error wrapping ErrFileChanged instead of a
// fatal SIGBUS. In a child process: a regression kills it.
func TestSessionAddrSpaceObjectTruncated(t *testing.T) {
	if !testenv.InChild(t) {
		return
	}
	s, truncated := sessionOverTruncatedObject(t)
	cur, err := s.Cursor(s.Core.Threads[0].TID, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.AddrSpace().FindProcInfo(cur.PC())
	if !errors.Is(err, ErrFileChanged) || !strings.Contains(err.Error(), truncated) {
		t.Errorf("unwind info from a truncated object: %v, want ErrFileChanged naming %s", err, truncated)
	}
}

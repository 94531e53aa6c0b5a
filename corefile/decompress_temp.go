package corefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Temporary files and directories of coreunwind are named
// coreunwind-KIND-PID-RANDOM, with the pid of the process that made them,
// so that a later run can tell what a killed run left behind (its pid is
// gone) from what a running one is using, and remove only that.

// TempPrefix starts the name of every temporary file or directory
// coreunwind makes.
const TempPrefix = "coreunwind-"

// TempPattern is the os.CreateTemp / os.MkdirTemp pattern of a temporary
// file or directory of this kind ("core", "triage") made by this process.
func TempPattern(kind string) string {
	return fmt.Sprintf("%s%s-%d-*", TempPrefix, kind, os.Getpid())
}

// tempOwner returns the pid a temporary name made by TempPattern carries.
func tempOwner(name string) (pid int, ok bool) {
	rest, ok := strings.CutPrefix(name, TempPrefix)
	if !ok {
		return 0, false
	}
	parts := strings.SplitN(rest, "-", 3)
	if len(parts) != 3 || parts[0] == "" || parts[2] == "" {
		return 0, false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// createUnlinkedTemp makes a file for scratch data in dir ("":
// os.TempDir()) that no name refers to, so that nothing is left behind
// whatever ends the process, SIGKILL included: O_TMPFILE where the file
// system has it, else a file unlinked as soon as it is made (named by
// TempPattern for the sweep, should the process die in between).
func createUnlinkedTemp(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return os.NewFile(uintptr(fd), filepath.Join(dir, "(unlinked)")), nil
	}
	f, err := os.CreateTemp(dir, TempPattern("core"))
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}

// TempDirError is a temporary file that could not be made: it names
// the directory and, when it came from there, the TMPDIR variable, which
// is what the user has to fix.
func TempDirError(dir string, err error) error {
	if dir == "" {
		dir = os.TempDir()
	}
	if os.Getenv("TMPDIR") != "" && filepath.Clean(dir) == filepath.Clean(os.TempDir()) {
		return fmt.Errorf("temporary directory %s (TMPDIR) unusable: %w", dir, err)
	}
	return fmt.Errorf("temporary directory %s unusable: %w", dir, err)
}

// SweepStale removes what killed runs of coreunwind left in dir ("":
// os.TempDir()): entries named by TempPattern, owned by this user, last
// modified before since, whose process is gone. Entries of a live
// process (or of a pid reused since: it cannot be told apart) and
// anything else are left alone. It returns what it removed.
func SweepStale(dir string, since time.Time) []string {
	if dir == "" {
		dir = os.TempDir()
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		pid, ok := tempOwner(e.Name())
		if !ok || pid == os.Getpid() || processExists(pid) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil || int(st.Uid) != os.Geteuid() || !time.Unix(st.Mtim.Unix()).Before(since) {
			continue
		}
		if os.RemoveAll(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// processExists says whether a process with this pid exists (EPERM: it
// does, another user's).
func processExists(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

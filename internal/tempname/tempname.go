// Package tempname names coreunwind's temporary files and directories
// coreunwind-KIND-PID-RANDOM, with the pid of the process that made them,
// so that a later run can tell what a killed run left behind (its pid is
// gone) from what a running one is using, and remove only that
// (SweepStale). corefile, triage and the test harness share it.
package tempname

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

// Prefix starts the name of every temporary file or directory
// coreunwind makes.
const Prefix = "coreunwind-"

// Pattern is the os.CreateTemp / os.MkdirTemp pattern of a temporary
// file or directory of this kind ("core", "triage") made by this process.
func Pattern(kind string) string {
	return fmt.Sprintf("%s%s-%d-*", Prefix, kind, os.Getpid())
}

// owner returns the pid a name made by Pattern carries.
func owner(name string) (pid int, ok bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
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

// SweepStale removes what killed runs of coreunwind left in dir ("":
// os.TempDir()): entries named by Pattern, owned by this user, last
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
		pid, ok := owner(e.Name())
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

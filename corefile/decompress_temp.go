package corefile

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/tempname"
)

// createUnlinkedTemp makes a file for scratch data in dir ("":
// os.TempDir()) that no name refers to, so that nothing is left behind
// whatever ends the process, SIGKILL included: O_TMPFILE where the file
// system has it, else a file unlinked as soon as it is made (named by
// tempname.Pattern for the sweep, should the process die in between).
func createUnlinkedTemp(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return os.NewFile(uintptr(fd), filepath.Join(dir, "(unlinked)")), nil
	}
	f, err := os.CreateTemp(dir, tempname.Pattern("core"))
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

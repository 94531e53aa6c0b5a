// Package regfile opens input files only when they are regular files.
//
// Every file coreunwind reads (cores, executables, libraries, debug
// files, perf maps, skip lists, symbol cache entries) may be named by a
// hostile core, an archive or a careless command line. A named pipe
// blocks open(2) until a writer comes, forever; a device such as
// /dev/zero never ends; a directory is not an input. So a file is opened
// without blocking (O_NONBLOCK: open on a FIFO returns at once), checked
// with fstat on the descriptor itself (no race between a stat and the
// open), and refused unless it is regular; only then is O_NONBLOCK
// cleared for ordinary reads. Paths are never created or written here.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is what errors.Is finds in every refusal of a file that
// is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError says which path was refused and what it is.
type NotRegularError struct {
	Path string
	Kind string // "named pipe", "character device", "directory", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: not a regular file (%s)", e.Path, e.Kind)
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// kind names a file type as ls and stat(1) do.
func kind(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "named pipe"
	case unix.S_IFCHR:
		return "character device"
	case unix.S_IFBLK:
		return "block device"
	case unix.S_IFDIR:
		return "directory"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFLNK:
		return "symbolic link"
	}
	return fmt.Sprintf("file type %#o", mode&unix.S_IFMT)
}

// Flags for OpenFd besides the read-only, non-blocking open.
const (
	// NoFollow refuses a symbolic link at path itself (O_NOFOLLOW):
	// for files in a directory coreunwind owns, where a link can only
	// be someone else's plant.
	NoFollow = unix.O_NOFOLLOW
)

// OpenFd opens the regular file at path read-only and returns a plain
// descriptor (close-on-exec, blocking again) and the file's size. It is
// for hot paths where an os.File's set-up costs more than the read; Open
// is for everything else. flags is 0 or NoFollow.
func OpenFd(path string, flags int) (fd int, size int64, err error) {
	for {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY|flags, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		if err == unix.ELOOP && flags&NoFollow != 0 {
			var st unix.Stat_t
			if unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				return -1, 0, &NotRegularError{Path: path, Kind: kind(st.Mode)}
			}
		}
		return -1, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, 0, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, 0, &NotRegularError{Path: path, Kind: kind(st.Mode)}
	}
	// F_SETFL sets only the status flags (O_NONBLOCK, O_APPEND, O_ASYNC,
	// O_DIRECT, O_NOATIME), none of which is wanted: one call, where
	// SetNonblock would first read them back (triage opens every file of
	// a directory through here).
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, 0); err != nil {
		unix.Close(fd)
		return -1, 0, &os.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return fd, st.Size, nil
}

// Open opens the regular file at path for reading, as os.Open does,
// and refuses anything else with a *NotRegularError.
func Open(path string) (*os.File, error) {
	return open(path, 0)
}

// OpenNoFollow is Open that also refuses a symbolic link at path.
func OpenNoFollow(path string) (*os.File, error) {
	return open(path, NoFollow)
}

func open(path string, flags int) (*os.File, error) {
	fd, _, err := OpenFd(path, flags)
	if err != nil {
		return nil, err
	}
	// A blocking descriptor: os.NewFile leaves it out of the poller, as
	// os.Open does for a regular file.
	return os.NewFile(uintptr(fd), path), nil
}

// ErrTooLarge is what errors.Is finds when ReadAll refuses a file
// larger than its bound.
var ErrTooLarge = errors.New("file larger than its bound")

// ReadAll reads the rest of f, an open regular file, as io.ReadAll
// does, refusing a file of more than max bytes before reading any of it:
// the size comes from the file system, and a sparse file claims what it
// likes; a file growing meanwhile is refused once max bytes are read.
func ReadAll(f *os.File, max int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, at most %d)", f.Name(), ErrTooLarge, fi.Size(), max)
	}
	// Into a buffer of the size the file system gives, and a byte more
	// to meet the end (as os.ReadFile): io.ReadAll starts at 512 bytes
	// and makes a read and a copy for each doubling, for a symbol cache
	// file of each module in every warm report.
	lr := io.LimitReader(f, max+1)
	b := make([]byte, 0, fi.Size()+1)
	for {
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grown since Stat
		}
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w (grew past %d bytes)", f.Name(), ErrTooLarge, max)
	}
	return b, nil
}

package corefile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/mapfault"
	"github.com/coreunwind/coreunwind/internal/regfile"
)

// mapFile maps the whole of f, a regular file (regfile.Open or a
// temporary file), read-only. ReadAt on an *os.File costs a system call
// per read; the unwinder reads memory in small pieces, so cores and
// overlay files are mapped instead.
func mapFile(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size == 0 {
		return nil, nil
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%s: too large to map (%d bytes)", f.Name(), size)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", f.Name(), err)
	}
	// A core is read here and there (stacks, the runtime's structures,
	// the pages a frame points into), and mostly holes: the kernel's
	// read-around on each miss read 128 KB or more, zero-filled where
	// the file has holes. Triaging 200 cores not in the page cache took
	// 1.6-2.7 s of CPU (1.7-7.6 s wall) with it and 0.7 s (0.9 s) with
	// page-sized reads; a single report's CPU fell 5-18%. Cores in the
	// page cache read the same either way. (Advice only: the mapping
	// works without it.)
	unix.Madvise(b, unix.MADV_RANDOM)
	mapfault.Track(b, f.Name())
	return b, nil
}

// mapPath opens and maps the regular file at path; the descriptor is
// closed once the mapping exists. Paths come from the core, so anything
// but a regular file (a FIFO would block open, a device could be endless)
// is refused (regfile).
func mapPath(path string) ([]byte, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return mapFile(f)
}

func unmap(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	mapfault.Untrack(b)
	return unix.Munmap(b)
}

// releasePages drops b's pages from the resident set (b is a read-only
// mapping of mapFile).
func releasePages(b []byte) {
	if len(b) > 0 {
		unix.Madvise(b, unix.MADV_DONTNEED)
	}
}

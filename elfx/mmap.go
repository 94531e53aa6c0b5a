package elfx

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/mapfault"
	"github.com/coreunwind/coreunwind/internal/regfile"
)

// mapFile maps path read-only. ReadAt on an *os.File costs a system call
// per read; symbolizing a backtrace does thousands of small reads, so the
// object is parsed from memory instead. An empty file cannot be mapped and
// yields an empty slice. Anything but a regular file (a FIFO blocks
// open, a device never ends) is refused (regfile).
func mapFile(path string) ([]byte, error) {
	fd, size, err := regfile.OpenFd(path, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if size == 0 {
		return []byte{}, nil
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%s: file too large to map (%d bytes)", path, size)
	}
	data, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("%s: mmap: %w", path, err)
	}
	mapfault.Track(data, path)
	return data, nil
}

// unmapFile releases a mapping made by mapFile.
func unmapFile(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	mapfault.Untrack(data)
	return unix.Munmap(data)
}

// release gives back the whole pages of b, part of o's file mapping, after
// a pass over it that will not come back soon (a scan of node's 7 MB
// symbol names for three JIT symbols): they leave the process's resident
// set and stay in the page cache, from which a later read faults them in
// again with the same bytes (the mapping is private and never written).
// Memory that is not the file mapping's is left alone.
func (o *Object) release(b []byte) {
	if len(b) == 0 || len(o.mapped) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(o.mapped)))
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if start < base || start-base+uintptr(len(b)) > uintptr(len(o.mapped)) {
		return
	}
	page := uintptr(os.Getpagesize())
	lo := (start - base + page - 1) / page * page
	hi := (start - base + uintptr(len(b))) / page * page
	if hi > lo {
		unix.Madvise(o.mapped[lo:hi], unix.MADV_DONTNEED)
	}
}

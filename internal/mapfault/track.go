package mapfault

import (
	"sync"
	"unsafe"
)

// The files mapped, by address, so that a fault can say which file
// changed: a fault address alone tells a user nothing.
var tracked struct {
	mu    sync.Mutex
	files map[uintptr]trackedFile // by start address
}

type trackedFile struct {
	end  uintptr
	path string
}

// Track records that b is the mapping of the file at path, until Untrack.
func Track(b []byte, path string) {
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	tracked.mu.Lock()
	if tracked.files == nil {
		tracked.files = map[uintptr]trackedFile{}
	}
	tracked.files[start] = trackedFile{end: start + uintptr(len(b)), path: path}
	tracked.mu.Unlock()
}

// Untrack forgets the mapping b (before it is unmapped).
func Untrack(b []byte) {
	if len(b) == 0 {
		return
	}
	tracked.mu.Lock()
	delete(tracked.files, uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	tracked.mu.Unlock()
}

// trackedPath names the file mapped at addr, "" if none is tracked. A
// linear search: it runs once per fault, and a process maps hundreds of
// files at most.
func trackedPath(addr uintptr) string {
	tracked.mu.Lock()
	defer tracked.mu.Unlock()
	for start, f := range tracked.files {
		if start <= addr && addr < f.end {
			return f.path
		}
	}
	return ""
}

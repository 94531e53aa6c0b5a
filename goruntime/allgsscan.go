package goruntime

import (
	"errors"
	"fmt"
	"math/bits"
)

// AllgsInData finds runtime.allgs, for a stripped executable whose
// runtime.allgadd no code decoder reads (arm, ppc64le, s390x, riscv64,
// loong64), by scanning the executable's writable data, [start, end)
// at run-time addresses, for the one slice header {ptr, len, cap} whose
// len pointers all point to plausible g's under b's layouts
// (plausibleG). It returns the header's run-time address; an error when
// no header, or more than one, validates: a guess between two would
// show another slice's goroutines as the program's.
func AllgsInData(mem Memory, b Binary, start, end uint64) (uint64, error) {
	if b.PtrSize != 4 && b.PtrSize != 8 {
		return 0, fmt.Errorf("goruntime: pointer size %d", b.PtrSize)
	}
	if b.Layouts == nil {
		return 0, errors.New("goruntime: scanning for runtime.allgs without the runtime's layouts")
	}
	if end < start || end-start > maxScanData {
		return 0, fmt.Errorf("goruntime: writable data %#x-%#x is not scanned (more than %d bytes)", start, end, uint64(maxScanData))
	}
	r := &Reader{b: b, layout: b.Layouts.layout, info: b.Layouts.info}
	ptr := uint64(b.PtrSize)
	start = (start + ptr - 1) &^ (ptr - 1)
	buf := make([]byte, scanChunk+2*ptr)
	ptrs, g := make([]byte, allgsChunk*ptr), make([]byte, r.layout.size)
	var found []uint64
	for a := start; a+3*ptr <= end; a += scanChunk {
		// A chunk and the two words after it: every header that starts
		// in the chunk is whole in buf.
		n := min(uint64(len(buf)), end-a)
		if mem.ReadMem(a, buf[:n]) != nil {
			continue // a page the core lacks holds no allgs to read
		}
		for off := uint64(0); off+3*ptr <= n && off < scanChunk; off += ptr {
			base := r.decodeWord(buf[off : off+ptr])
			length := r.decodeWord(buf[off+ptr : off+2*ptr])
			capacity := r.decodeWord(buf[off+2*ptr : off+3*ptr])
			if length == 0 || length > capacity || length > maxScanGoroutines || base == 0 || base%ptr != 0 {
				continue
			}
			if r.validAllgs(mem, base, length, ptrs, g) {
				if found = append(found, a+off); len(found) > 1 {
					return 0, fmt.Errorf("goruntime: runtime.allgs is ambiguous in the writable data: slices of g's at %#x and %#x", found[0], found[1])
				}
			}
		}
	}
	if len(found) == 0 {
		return 0, fmt.Errorf("goruntime: no slice of g's (runtime.allgs) in the writable data %#x-%#x", start, end)
	}
	return found[0], nil
}

// Bounds on the scan for runtime.allgs.
const (
	// maxScanData bounds the writable data scanned (a Go program's
	// .data and .bss are well under a megabyte).
	maxScanData = 256 << 20
	// maxScanGoroutines bounds the length of a slice taken for allgs.
	maxScanGoroutines = 10_000_000
	scanChunk         = 64 << 10
	// minStack is the smallest goroutine stack the runtime allocates
	// (fixedStack, 2 KiB on Linux), maxStack a bound above the largest
	// (maxstacksize, 1 GB on 64-bit targets).
	minStack = 2 << 10
	maxStack = 1 << 30
)

// validAllgs reports whether the n pointers at base all point to
// plausible g's (plausibleG) with distinct goroutine ids, at least one
// of them not dead (the program's running goroutine is among them). The
// pointers are read a chunk at a time into ptrs (allgsChunk of them),
// each g into g: n is memory's, not a size to allocate by.
func (r *Reader) validAllgs(mem Memory, base, n uint64, ptrs, g []byte) bool {
	ptr := uint64(r.b.PtrSize)
	ids := map[uint64]bool{}
	live := false
	for i := uint64(0); i < n; i += allgsChunk {
		k := min(allgsChunk, n-i)
		if mem.ReadMem(base+i*ptr, ptrs[:k*ptr]) != nil {
			return false
		}
		for j := uint64(0); j < k; j++ {
			gp := r.decodeWord(ptrs[j*ptr : (j+1)*ptr])
			if gp == 0 || gp%ptr != 0 || mem.ReadMem(gp, g) != nil {
				return false
			}
			d := r.decode(gp, g)
			if !plausibleG(&d) || (d.ID != 0 && ids[d.ID]) {
				return false
			}
			ids[d.ID] = d.ID != 0
			live = live || !d.Status.Dead()
		}
	}
	return live
}

// plausibleG reports whether g looks like one of allgs' g's: a status
// the runtime has; a stack of a power-of-two size of at least 2 KiB
// (stackalloc's, doubled and halved as it grows and shrinks), absent
// only from a dead g (gfput frees a dead g's stack of a size other
// than the starting one); an id, goid, past 0 unless dead. A g in a
// system call may be a cgo callback's on a thread Go did not create,
// whose stack is that thread's: only ordered.
func plausibleG(g *Goroutine) bool {
	if _, known := statusNames[g.Status]; !known && g.Status != StatusDeadExtra {
		return false
	}
	if g.Status.Dead() {
		return (g.StackLo == 0 && g.StackHi == 0) || goStack(g.StackLo, g.StackHi)
	}
	if g.ID == 0 || g.StackLo >= g.StackHi {
		return false
	}
	return g.Status == StatusSyscall || goStack(g.StackLo, g.StackHi)
}

// goStack reports whether [lo, hi) is a stack the runtime allocates
// for a goroutine.
func goStack(lo, hi uint64) bool {
	size := hi - lo
	return lo < hi && size >= minStack && size <= maxStack && bits.OnesCount64(size) == 1
}

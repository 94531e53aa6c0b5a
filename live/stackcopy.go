package live

import (
	"os"
	"path/filepath"
	"sort"
)

// The copies of the stacks, taken while the threads are stopped: what
// the stop costs beyond the kernel's own work, so the bytes go into
// memory made ready before the stop (an arena whose pages are touched:
// a fresh page faulted in during the copy cost more than the copy) and
// are read with one process_vm_readv for all threads.

// stackArena is memory for the copies, its pages touched before the
// stop.
type stackArena struct{ free []byte }

// maxStackArena bounds the arena: a process of thousands of threads
// would have it allocate and touch a copy's worth for each (the copies
// past it are made in the stop, as they come).
const maxStackArena = 8 << 20

// newStackArena makes room for threads copies of limit bytes each.
func newStackArena(threads, limit int) *stackArena {
	b := make([]byte, min(threads*(limit+redZone), maxStackArena))
	for i := 0; i < len(b); i += pageSize {
		b[i] = 1 // fault the page in now, not in the stop
	}
	return &stackArena{free: b}
}

// take returns n bytes of the arena, or of new memory once it is used
// up (threads that started after it was made).
func (a *stackArena) take(n int) []byte {
	if a == nil || n > len(a.free) {
		return make([]byte, n)
	}
	b := a.free[:n:n]
	a.free = a.free[n:]
	return b
}

// copyStacks copies, for every thread, its stack from below the stack
// pointer (the red zone) toward the end of its mapping, at most limit
// bytes.
func (s *Snapshot) copyStacks(limit int, arena *stackArena) {
	reread := false
	var want []extent
	for _, th := range s.Threads {
		sp := s.stackPointer(th.Regs)
		m, ok := mappingAt(s.Maps, sp)
		if !ok && !reread {
			// A stack mapped since the maps were read: read them again
			// (in the stop, rarely).
			if b, err := os.ReadFile(filepath.Join(s.dir, "maps")); err == nil {
				s.Maps = parseMaps(b)
			}
			reread = true
			m, ok = mappingAt(s.Maps, sp)
		}
		if !ok {
			continue
		}
		want = append(want, extent{lo: max(m.Start, sp-min(sp, redZone)), hi: min(m.End, sp+uint64(limit))})
	}
	s.Copies = s.Copies[:0]
	for _, e := range mergeExtents(want) {
		s.Copies = append(s.Copies, Copy{Addr: e.lo, Data: arena.take(int(e.hi - e.lo))})
	}
	s.mem.readEach(s.Copies)
}

// extent is the memory from lo up to hi.
type extent struct{ lo, hi uint64 }

// mergeExtents sorts extents by address and joins those that overlap
// (threads on one stack: a signal handler's alternate stack shared).
func mergeExtents(es []extent) []extent {
	sort.Slice(es, func(i, j int) bool { return es[i].lo < es[j].lo })
	var out []extent
	for _, e := range es {
		if n := len(out); n > 0 && e.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, e.hi)
			continue
		}
		out = append(out, e)
	}
	return out
}

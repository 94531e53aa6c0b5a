package goruntime

// A Go function that C calls runs on the calling thread's goroutine
// stack, entered through runtime.cgocallback, which ran on the thread's
// system stack (its m.g0 stack: the C code's own stack) and left its
// stack pointer there in m.g0.sched.sp before switching. The C callers
// of the callback are above that stack pointer; the goroutine's stack
// holds none of them.

// SystemStackSP is m.g0.sched.sp of the m at addr m: where
// runtime.cgocallback's frame on the system stack is while a callback
// from C runs on that thread. ok is false when it cannot be read.
func (r *Reader) SystemStackSP(mem Memory, m uint64) (sp uint64, ok bool) {
	if m == 0 || r.info.mG0 < 0 {
		return 0, false
	}
	g0, err := r.word(mem, m+uint64(r.info.mG0))
	if err != nil || g0 == 0 {
		return 0, false
	}
	sp, err = r.word(mem, g0+uint64(r.layout.schedSP))
	return sp, err == nil && sp != 0
}

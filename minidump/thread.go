package minidump

import "fmt"

// Thread is MINIDUMP_THREAD: the thread's id, its stack as the dump holds
// it, and its saved context.
type Thread struct {
	ID            uint32
	SuspendCount  uint32
	PriorityClass uint32
	Priority      uint32
	TEB           uint64 // Windows' thread environment block; 0 on Linux
	// Stack is the thread's stack memory; Avail 0 when the file lacks it.
	Stack   MemoryRange
	Context Context
	// Err says why the context could not be read (nil: it was).
	Err error
}

const threadSize = 48

func (d *Dump) readThreadList(b []byte, off uint64) error {
	entries, n, err := list(b, off, 4, threadSize)
	d.Threads = make([]Thread, 0, n)
	for i := 0; i < n; i++ {
		e := entries[i*threadSize:]
		t := Thread{ID: le.Uint32(e), SuspendCount: le.Uint32(e[4:]), PriorityClass: le.Uint32(e[8:]),
			Priority: le.Uint32(e[12:]), TEB: le.Uint64(e[16:])}
		stack, serr := d.rangeAt(e[24:])
		if serr != nil {
			d.warnf("thread %d: stack: %v", t.ID, serr)
		}
		t.Stack = stack
		t.Context, t.Err = d.contextAt(locationAt(e[40:]))
		if t.Err != nil {
			t.Err = fmt.Errorf("thread %d: %w", t.ID, t.Err)
			d.warnf("%v", t.Err)
		}
		d.Threads = append(d.Threads, t)
	}
	return err
}

// Exception is MINIDUMP_EXCEPTION_STREAM. On Linux, Breakpad and
// Crashpad put the signal number in Code, si_code in Flags and si_addr
// in Address.
type Exception struct {
	ThreadID   uint32
	Code       uint32
	Flags      uint32
	Record     uint64 // a nested exception record's address (Windows)
	Address    uint64
	Parameters []uint64
	// Context is the crashing thread's context at the fault (the thread
	// list's may be the signal handler's); Err says why it could not be
	// read.
	Context Context
	Err     error
}

const (
	exceptionSize     = 168
	maxExceptionParms = 15
)

func (d *Dump) readException(b []byte, off uint64) error {
	if len(b) < exceptionSize {
		return formatErr(off, "%d bytes, want %d", len(b), exceptionSize)
	}
	e := &Exception{ThreadID: le.Uint32(b), Code: le.Uint32(b[8:]), Flags: le.Uint32(b[12:]),
		Record: le.Uint64(b[16:]), Address: le.Uint64(b[24:])}
	n := min(le.Uint32(b[32:]), maxExceptionParms)
	for i := uint32(0); i < n; i++ {
		e.Parameters = append(e.Parameters, le.Uint64(b[40+8*i:]))
	}
	e.Context, e.Err = d.contextAt(locationAt(b[160:]))
	d.Exception = e
	if e.Err != nil {
		return fmt.Errorf("thread %d: %w", e.ThreadID, e.Err)
	}
	return nil
}

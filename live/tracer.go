package live

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// A tracer runs functions on one OS thread of its own: ptrace ties a
// tracee to the thread that attached it, and every later request
// (interrupt, wait, read registers, detach) must come from that thread.
//
// The thread is never given back to the Go scheduler: when the tracer is
// closed its goroutine returns still locked, and the runtime ends the
// thread. The kernel then detaches every tracee the thread still had and
// lets it run: the last guard against leaving the process stopped,
// whatever went wrong before (a thread that never stopped, and so could
// not be detached). The runtime never ends the process's main thread (it
// parks it instead), so the tracer's thread is never that one.
type tracer struct {
	calls chan func()
}

func newTracer() *tracer {
	t := &tracer{calls: make(chan func())}
	started := make(chan struct{})
	go t.run(started)
	<-started
	return t
}

// run serves t's calls on a thread locked to it, closing started once
// it is locked to a thread that is not the main one.
func (t *tracer) run(started chan struct{}) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// On the main thread: start the tracer again while holding
		// it, so that the new goroutine's thread is another; let go of
		// the main thread once that one is locked.
		go t.run(started)
		<-started
		runtime.UnlockOSThread()
		return
	}
	// The waits for stopped threads sleep tens of microseconds: the
	// default timer slack (50 µs) would add to every one, and this
	// thread only ever sleeps while the process is stopped.
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	close(started)
	for f := range t.calls {
		f()
	}
	// Returning while locked ends the OS thread (see above).
}

// do runs f on the tracer's thread and returns when it has.
func (t *tracer) do(f func()) {
	done := make(chan struct{})
	t.calls <- func() { defer close(done); f() }
	<-done
}

// close ends the tracer's thread, and with it any tracing left.
func (t *tracer) close() { close(t.calls) }

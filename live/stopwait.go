package live

import (
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Waiting for interrupted threads to stop. The tracer looks at each
// thread without blocking (a thread in an uninterruptible sleep may not
// stop for as long as the kernel holds it, and a blocking wait could not
// be given up) and sleeps between looks, 20 µs at first, twice as long
// each time. It used to sleep 2 µs: a tracer polling that often took a
// CPU from the very threads it waited for (on 2 CPUs, 3 ms to see 20
// threads stop, against 0.1 ms when it sleeps).

const (
	firstRecheck = 20 * time.Microsecond
	lastRecheck  = 20 * time.Millisecond
)

// waitStopped waits until every tracee of ts has stopped or gone, or the
// timeout: a thread that does not stop is warned about and left out.
// Not cut short by Take's context: a thread interrupted and not waited
// for could not be let go (ptrace detaches stopped threads only). Runs
// on the tracer's thread.
func (s *Snapshot) waitStopped(ts []*tracee, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	recheck := firstRecheck
	pending := ts
	for {
		pending = s.pollStopped(pending)
		if len(pending) == 0 {
			return
		}
		left := time.Until(deadline)
		if left <= 0 {
			for _, tr := range pending {
				s.warnf("thread %d did not stop within %v (state %c: in an uninterruptible sleep?): it is not in the snapshot", tr.tid, timeout, threadState(s.PID, tr.tid))
			}
			return
		}
		// A sleep of the thread itself, not a Go timer: those wake at
		// millisecond granularity when the runtime is idle.
		ts := unix.NsecToTimespec(int64(min(recheck, left)))
		unix.Nanosleep(&ts, nil)
		recheck = min(2*recheck, lastRecheck)
	}
}

// pollStopped looks once at each tracee of ts and returns those still
// running.
func (s *Snapshot) pollStopped(ts []*tracee) []*tracee {
	var pending []*tracee
	for _, tr := range ts {
		kind, sig, err := pollStop(tr.tid)
		switch {
		case err != nil:
			s.warnf("thread %d: waiting for it to stop: %v", tr.tid, err)
		case kind == stopped:
			tr.stopped, tr.signal = true, sig
		case kind == vanished:
			s.warnf("thread %d exited during the snapshot", tr.tid)
		default:
			pending = append(pending, tr)
		}
	}
	return pending
}

var quietStopsOnce sync.Once

// quietStops asks the kernel not to send this process a SIGCHLD for
// each ptrace stop of a tracee (SA_NOCLDSTOP on its SIGCHLD action,
// whose handler the Go runtime installed): nothing here waits for the
// signal, and delivering it, once per thread stopped, to a thread of
// this process that had to wake for it, was a third of the time the
// interrupts took (about 5 µs a thread on 2 CPUs). Children's exits are
// still signalled; only stops and continues of children and tracees are
// not, which neither this program nor os/exec uses.
func quietStops() {
	quietStopsOnce.Do(func() {
		// The kernel's struct sigaction: handler, flags, restorer, mask.
		var act struct {
			handler, flags, restorer uintptr
			mask                     uint64
		}
		const saNoCldStop = 1
		p := uintptr(unsafe.Pointer(&act))
		if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(unix.SIGCHLD), 0, p, 8, 0, 0); e != 0 {
			return
		}
		if act.handler == 0 || act.handler == 1 || act.flags&saNoCldStop != 0 {
			return // SIG_DFL or SIG_IGN: no handler runs; or already so
		}
		act.flags |= saNoCldStop
		unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(unix.SIGCHLD), p, 0, 8, 0, 0)
	})
}

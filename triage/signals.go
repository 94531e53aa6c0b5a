package triage

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A batch extracts archive members, hundreds of megabytes each, into its
// temporary directory. Interrupted (Ctrl-C, kill, a closed terminal), it
// must not leave them behind: while such a directory exists, the signals
// that end a process by default are caught, the directories removed, and
// the signal raised again with its default action, so that the process
// ends as it would have (its exit status says which signal). SIGKILL
// cannot be caught: what it leaves, the next run sweeps
// (tempname.SweepStale). A signal the process was started ignoring
// (nohup's SIGHUP) stays ignored.

var cleanupSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

var onSignal struct {
	mu   sync.Mutex
	dirs map[string]bool
	ch   chan os.Signal
}

// removeOnSignal has dir removed if the process gets one of
// cleanupSignals; the returned function undoes it (once dir is gone).
func removeOnSignal(dir string) (unregister func()) {
	s := &onSignal
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirs == nil {
		s.dirs = map[string]bool{}
	}
	s.dirs[dir] = true
	if s.ch == nil {
		var sigs []os.Signal
		for _, sig := range cleanupSignals {
			if !signal.Ignored(sig) {
				sigs = append(sigs, sig)
			}
		}
		s.ch = make(chan os.Signal, 1)
		signal.Notify(s.ch, sigs...)
		go removeAndDie(s.ch)
	}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.dirs, dir)
		if len(s.dirs) == 0 && s.ch != nil {
			signal.Stop(s.ch)
			close(s.ch)
			s.ch = nil
		}
	}
}

// removeAndDie waits for a signal on ch, removes the registered
// directories and ends the process by that signal.
func removeAndDie(ch chan os.Signal) {
	sig, ok := <-ch
	if !ok {
		return
	}
	s := &onSignal
	s.mu.Lock() // held to the end: no batch registers or removes meanwhile
	for dir := range s.dirs {
		os.RemoveAll(dir)
	}
	signal.Reset(sig)
	num := sig.(syscall.Signal)
	unix.Kill(os.Getpid(), num)
	// The default action ends the process; should it not (the signal
	// blocked in this thread), exit as the shell reports a signal.
	time.Sleep(time.Second)
	os.Exit(128 + int(num))
}

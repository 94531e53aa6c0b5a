// Package mapfault turns the fault of a read from a memory-mapped file
// into an error. Cores and objects are mapped, not read: when such a file
// is truncated or rewritten in place while it is in use (a library
// upgraded during a triage run, a core still being written), touching a
// page past its new end raises SIGBUS, which the Go runtime treats as a
// fatal error of the whole process. Catch arms debug.SetPanicOnFault for
// the goroutine and recovers that fault, so one core fails with an error
// and a batch goes on. It owns nothing about files; callers name the
// file in the error they wrap.
package mapfault

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

// ErrFault is wrapped by the error Catch returns for a fault.
var ErrFault = errors.New("a mapped file was truncated or changed while in use")

// Fault is a memory fault recovered by Catch.
type Fault struct {
	Addr uintptr // the faulting address
	Path string  // the file mapped there (see Track), "" if unknown
}

func (f *Fault) Error() string {
	if f.Path == "" {
		return fmt.Sprintf("memory fault at %#x: %v", f.Addr, ErrFault)
	}
	return fmt.Sprintf("%s: %v (memory fault at %#x)", f.Path, ErrFault, f.Addr)
}

func (f *Fault) Unwrap() error { return ErrFault }

// Catch runs f with the goroutine's memory faults turned into panics and
// returns such a fault as a *Fault; any other panic goes on. Goroutines f
// starts are not covered: they use a Group. A fault leaves what f was
// building half done, so the caller must drop it.
func Catch(f func()) (err error) {
	defer recoverFault(debug.SetPanicOnFault(true), &err)
	f()
	return nil
}

// Copy is copy(dst, src) for a src in a mapped file: a fault is returned
// instead of killing the process. It is Catch without the closure: the
// unwinder's reads of core memory go through it (about 15 ns a read).
func Copy(dst, src []byte) (n int, err error) {
	defer recoverFault(debug.SetPanicOnFault(true), &err)
	return copy(dst, src), nil
}

// recoverFault, deferred, restores the goroutine's panic-on-fault setting
// to old and stores a fault recovered in *err; other panics go on.
func recoverFault(old bool, err *error) {
	debug.SetPanicOnFault(old)
	if r := recover(); r != nil {
		fault := asFault(r)
		if fault == nil {
			panic(r)
		}
		*err = fault
	}
}

// Reraise panics again with p if p is a fault, and returns otherwise. A
// recover that turns a parser's panic on hostile bytes into a "malformed"
// error calls it first: a fault is not the bytes' doing, and the Catch
// around the work reports it with the file's name.
func Reraise(p any) {
	if f := asFault(p); f != nil {
		panic(f)
	}
}

// asFault returns the fault r is, or nil. A fault is a runtime error that
// carries the faulting address (what SetPanicOnFault makes of SIGBUS and
// of SIGSEGV away from page zero; a nil dereference has no address), or a
// *Fault a Group raised again.
func asFault(r any) *Fault {
	switch v := r.(type) {
	case *Fault:
		return v
	case runtime.Error:
		if a, ok := v.(interface{ Addr() uintptr }); ok {
			return &Fault{Addr: a.Addr(), Path: trackedPath(a.Addr())}
		}
	}
	return nil
}

// Group runs functions on goroutines of their own, as a sync.WaitGroup
// does, each under Catch. Wait raises the first fault again in the
// waiting goroutine, so that the Catch around the work the goroutines
// are part of returns it; a goroutine that faulted stops, the others run
// to their end.
type Group struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	fault *Fault
}

// Go runs f on a new goroutine.
func (g *Group) Go(f func()) {
	g.wg.Go(func() {
		if err := Catch(f); err != nil {
			g.mu.Lock()
			if g.fault == nil {
				g.fault = err.(*Fault)
			}
			g.mu.Unlock()
		}
	})
}

// Wait waits for the goroutines, then panics with the first fault, if
// any (for the caller's Catch).
func (g *Group) Wait() {
	g.wg.Wait()
	if g.fault != nil {
		panic(g.fault)
	}
}

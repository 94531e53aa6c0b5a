// Command gofeat dies, with GOTRACEBACK=crash, in the ways the tests of
// what coreunwind reads of a Go program need, by its argument:
//
//   - "labels": goroutines parked with pprof labels, one locked to its
//     thread, before main assigns to a nil map;
//   - "repanic": a panic recovered and a second one raised from the
//     deferred call (the runtime prints "panic: ... [recovered]");
//   - "inflight": a goroutine panicking with an error value whose
//     deferred call blocks, when the process is sent SIGQUIT: the
//     error is still the panic's value in memory;
//   - "mapwrites": two goroutines write one map ("fatal error:
//     concurrent map writes");
//   - "deadlock": every goroutine blocked ("all goroutines are asleep");
//   - "throw": a fatal error raised by the runtime (runtime.throw) on a
//     user goroutine: unlocking an unlocked mutex;
//   - "wait SECONDS": goroutines blocked, seen by a GC, then main
//     sleeps SECONDS before it panics (the runtime prints how many
//     minutes they waited);
//   - "many N": N goroutines blocked in a channel receive, then main
//     panics (the benchmark's program).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"time"
)

var sink int

//go:noinline
func worker(ch chan int) {
	sink += <-ch
}

//go:noinline
func locked(ch chan int) {
	runtime.LockOSThread()
	sink += <-ch
}

//go:noinline
func bump(m map[string]int) {
	m["x"]++
}

//go:noinline
func labelled(ch chan int) {
	pprof.Do(context.Background(), pprof.Labels("role", "worker", "shard", "7"), func(context.Context) {
		worker(ch)
	})
}

//go:noinline
func repanic() {
	defer func() {
		r := recover()
		panic(fmt.Sprintf("again after %v", r))
	}()
	panic("first")
}

//go:noinline
func failing(started chan struct{}) {
	defer func() {
		close(started)
		select {} // the panic stays in flight
	}()
	panic(errors.New("disk full: /var/data"))
}

//go:noinline
func writer(m map[int]int) {
	for i := 0; ; i++ {
		m[i%64] = i
	}
}

//go:noinline
func unlockTwice() {
	var mu sync.Mutex
	mu.Unlock()
}

func main() {
	ch := make(chan int)
	switch os.Args[1] {
	case "labels":
		go labelled(ch)
		go labelled(ch)
		go locked(ch)
		time.Sleep(100 * time.Millisecond)
		bump(nil)
	case "repanic":
		repanic()
	case "inflight":
		started := make(chan struct{})
		go failing(started)
		<-started
		time.Sleep(50 * time.Millisecond)
		fmt.Fprintln(os.Stderr, "error:", errors.New("disk full: /var/data"))
		syscall.Kill(os.Getpid(), syscall.SIGQUIT)
		time.Sleep(time.Minute)
	case "mapwrites":
		m := map[int]int{}
		go writer(m)
		writer(m)
	case "deadlock":
		go worker(ch)
		<-ch
	case "throw":
		unlockTwice()
	case "wait":
		s, _ := strconv.Atoi(os.Args[2])
		for range 3 {
			go worker(ch)
		}
		time.Sleep(100 * time.Millisecond)
		// A GC's stack scan records when it first saw each blocked
		// (g.waitsince); the first cycle here does not on Go 1.26.
		runtime.GC()
		runtime.GC()
		time.Sleep(time.Duration(s) * time.Second)
		bump(nil)
	case "many":
		n, _ := strconv.Atoi(os.Args[2])
		for range n {
			go worker(ch)
		}
		time.Sleep(time.Second)
		bump(nil)
	}
}

// Command gocrash panics on one goroutine while other goroutines are parked
// on their own OS threads; run with GOTRACEBACK=crash the runtime raises
// SIGABRT and the kernel writes a core with every thread.
package main

import (
	"runtime"
	"time"
)

var sink int

//go:noinline
func park(ch chan int) {
	runtime.LockOSThread()
	sink += <-ch
}

//go:noinline
func explode(n int) {
	if n > 0 {
		panic("gocrash: explode")
	}
	sink = n
}

//go:noinline
func trigger(n int) {
	explode(n + 1)
	sink++
}

func main() {
	ch := make(chan int)
	for i := 0; i < 4; i++ {
		go park(ch)
	}
	time.Sleep(100 * time.Millisecond)
	trigger(len(runtime.Version()))
}

// Command goparked dies with goroutines parked: three blocked in a
// channel receive, one asleep, while main panics ("nilptr": a nil
// pointer dereference through runtime.sigpanic; "nilmap": an assignment
// to a nil map; "nilmap-store": another one, in another function;
// "nilmap-spawned": the first one, in a goroutine main spawned). Run with GOTRACEBACK=crash the runtime prints every
// goroutine, raises SIGABRT, and the kernel writes a core.
package main

import (
	"os"
	"time"
)

var sink int

// variant is set with -ldflags=-X to build a program that differs only
// in its Go build ID.
var variant = "1"

type node struct {
	val  int
	next *node
}

//go:noinline
func worker(id int, ch chan int) {
	sink += <-ch + id
}

//go:noinline
func sleeper() {
	time.Sleep(time.Hour)
}

// deref faults on its first instruction when n is nil: a return address
// there would be looked up in the code before the function.
//
//go:noinline
func deref(n *node) int {
	return n.val
}

//go:noinline
func bump(m map[string]int) {
	m["x"]++
}

// store assigns to a nil map too, through another runtime function
// (mapassign_fast64, not mapassign_faststr): another bug of the same kind.
//
//go:noinline
func store(m map[int]string) {
	m[1] = "x"
}

func main() {
	ch := make(chan int)
	for i := 0; i < 3; i++ {
		go worker(i, ch)
	}
	go sleeper()
	time.Sleep(100 * time.Millisecond)
	sink += len(variant)
	switch os.Args[1] {
	case "nilptr":
		sink += deref(nil)
	case "nilmap":
		bump(nil)
	case "nilmap-store":
		store(nil)
	case "nilmap-spawned":
		go bump(nil)
		<-ch
	}
}

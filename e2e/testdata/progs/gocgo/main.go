// Command gocgo crashes in C code called from Go ("c": a NULL store in
// a C function two calls deep) or in Go code called back from C
// ("callback": a nil map assignment in a Go function C calls), with a
// goroutine asleep beside.
package main

/*
#include <stdlib.h>

extern void goCallback(int);

static int *volatile nowhere;

static __attribute__((noinline)) void c_leaf(int n) {
	*nowhere = n;
}

static __attribute__((noinline)) void c_middle(int n) {
	c_leaf(n + 1);
	asm volatile("" ::: "memory");
}

static __attribute__((noinline)) void c_calls_go(int n) {
	goCallback(n + 1);
	asm volatile("" ::: "memory");
}
*/
import "C"

import (
	"os"
	"time"
)

var sink int

//export goCallback
func goCallback(n C.int) {
	var m map[string]int
	m["x"] = int(n)
}

//go:noinline
func callC(mode string) {
	switch mode {
	case "c":
		C.c_middle(1)
	case "callback":
		C.c_calls_go(1)
	}
}

//go:noinline
func sleeper() {
	time.Sleep(time.Hour)
}

func main() {
	go sleeper()
	time.Sleep(50 * time.Millisecond)
	callC(os.Args[1])
}

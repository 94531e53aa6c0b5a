// Command gocgo crashes in C code called from Go ("c": a NULL store in
// a C function two calls deep) or in Go code called back from C
// ("callback": a nil map assignment in a Go function C calls;
// "callbackfatal": a fatal error there), with a goroutine asleep
// beside. In "callbackblock" the Go function C calls blocks and
// another goroutine panics; in "cthread" the same happens in a callback
// from a thread C created (pthread_create).
package main

/*
#include <pthread.h>
#include <stdlib.h>

extern void goCallback(int);
extern void goCallbackFatal(int);
extern void goCallbackBlock(int);

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

// The return addresses of c_calls_go_fatal or c_calls_go_block and of
// c_thread_main: where their callers resume, for the tests to compare
// the C frames below a callback with. Weak: the preamble is compiled
// twice (with the exports' C file), the two are one variable.
__attribute__((weak)) void *volatile c_caller_ret, *volatile c_thread_ret;

static __attribute__((noinline)) void c_calls_go_fatal(int n) {
	c_caller_ret = __builtin_return_address(0);
	goCallbackFatal(n + 1);
	asm volatile("" ::: "memory");
}

static __attribute__((noinline)) void c_calls_go_block(int n) {
	c_caller_ret = __builtin_return_address(0);
	goCallbackBlock(n + 1);
	asm volatile("" ::: "memory");
}

static __attribute__((noinline)) void *c_thread_main(void *arg) {
	c_thread_ret = __builtin_return_address(0);
	c_calls_go_block(2);
	asm volatile("" ::: "memory");
	return arg;
}

static void c_start_thread(void) {
	pthread_t t;
	pthread_create(&t, NULL, c_thread_main, NULL);
}
*/
import "C"

import (
	"os"
	"sync"
	"time"
)

var sink int

//export goCallback
func goCallback(n C.int) {
	var m map[string]int
	m["x"] = int(n)
}

//export goCallbackFatal
func goCallbackFatal(n C.int) {
	var mu sync.Mutex
	sink = int(n)
	mu.Unlock() // fatal error: sync: unlock of unlocked mutex
}

var never chan int

//export goCallbackBlock
func goCallbackBlock(n C.int) {
	sink = int(n)
	<-never
}

//go:noinline
func callC(mode string) {
	switch mode {
	case "c":
		C.c_middle(1)
	case "callback":
		C.c_calls_go(1)
	case "callbackfatal":
		C.c_calls_go_fatal(1)
	case "callbackblock":
		go crasher()
		C.c_calls_go_block(1)
	case "cthread":
		C.c_start_thread()
		crasher()
	}
}

// crasher panics once the callback had time to block.
//
//go:noinline
func crasher() {
	time.Sleep(200 * time.Millisecond)
	var m map[string]int
	m["x"] = sink
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

// Command inlined prints its own call stack from a function inlined
// twice over: the return addresses runtime.Callers gives, then each frame
// runtime.CallersFrames makes of them (function, file, line), the
// runtime's own reading of the pclntab that the tests compare with.
package main

import (
	"fmt"
	"runtime"
)

var sink int

func leaf(n int) int {
	pcs := make([]uintptr, 64)
	pcs = pcs[:runtime.Callers(0, pcs)]
	for _, pc := range pcs {
		fmt.Printf("pc %#x\n", pc)
	}
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		fmt.Printf("frame %s %s %d\n", f.Function, f.File, f.Line)
		if !more {
			break
		}
	}
	return n + len(pcs)
}

func middle(n int) int { return leaf(n+1) * 2 }

func outer(n int) int { return middle(n+1) + 3 }

//go:noinline
func caller(n int) int { return outer(n) }

func main() {
	sink = caller(1)
}

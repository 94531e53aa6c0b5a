// gopanic: a Go program that panics (a nil map write) in one function
// reached from two callers (the labelled triage corpus); run with
// GOTRACEBACK=crash so that the panic ends in a core.
// Usage: gopanic CALLER [thread]
package main

import (
	"os"
	"sync"
)

//go:noinline
func record(m map[string]int, k string) { m[k]++ }

//go:noinline
func tally(k string) { var m map[string]int; record(m, k) }

//go:noinline
func audit(k string) { tally(k + "!") }

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	run := func() {
		if os.Args[1] == "b" {
			audit("b")
		} else {
			tally("a")
		}
	}
	if len(os.Args) > 2 && os.Args[2] == "thread" {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); run() }()
		wg.Wait()
		return
	}
	run()
}

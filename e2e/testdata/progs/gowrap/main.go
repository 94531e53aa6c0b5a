// Command gowrap panics through compiler-generated code the runtime's
// traceback treats differently: "method" through a method value (a -fm
// closure, shown), "iface" through an interface call of a value-receiver
// method on a pointer (the (*T).M wrapper, hidden unless it called the
// panic: GOTRACEBACK=system shows it); "nilwrap" through that wrapper
// on a nil *T, where the wrapper itself panics (and is shown).
package main

import (
	"os"
	"time"
)

type T struct{ n int }

var sink map[string]int

//go:noinline
func (t T) Boom() {
	sink["x"] = t.n // assignment to entry in nil map
}

type Boomer interface{ Boom() }

//go:noinline
func viaMethodValue(t T) {
	f := t.Boom
	f()
}

//go:noinline
func viaInterface(b Boomer) {
	b.Boom()
}

func main() {
	go func() { time.Sleep(time.Hour) }()
	time.Sleep(20 * time.Millisecond)
	switch os.Args[1] {
	case "method":
		viaMethodValue(T{1})
	case "iface":
		viaInterface(&T{2})
	case "nilwrap":
		var p *T
		viaInterface(p)
	}
}

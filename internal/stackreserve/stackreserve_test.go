package stackreserve

import (
	"testing"
	"unsafe"
)

// deep uses about n bytes of stack in frames of 1 KiB, as a report's
// calls do under the walk.
//
//go:noinline
func deep(n int) byte {
	var frame [1 << 10]byte
	frame[n%len(frame)] = byte(n)
	if n <= len(frame) {
		return frame[0]
	}
	return deep(n-len(frame)) + frame[n%len(frame)]
}

// moves reports, for a new goroutine, whether its stack moved (was
// copied to a larger one) during Grow and during the deep calls that
// follow: a local's address changes when its stack is copied.
func moves(grow bool) (duringGrow, duringCalls bool) {
	done := make(chan [2]bool)
	go func() {
		var local byte
		start := uintptr(unsafe.Pointer(&local))
		if grow {
			Grow()
		}
		grown := uintptr(unsafe.Pointer(&local))
		deep(10 << 10)
		done <- [2]bool{grown != start, uintptr(unsafe.Pointer(&local)) != grown}
	}()
	m := <-done
	return m[0], m[1]
}

// TestGrow: after Grow, 10 KiB of calls run without copying the stack;
// without it they copy (so the test sees what it claims to).
func TestGrow(t *testing.T) {
	if duringGrow, duringCalls := moves(true); !duringGrow || duringCalls {
		t.Errorf("with Grow: stack moved during Grow %v (want true), during the calls %v (want false)", duringGrow, duringCalls)
	}
	if _, duringCalls := moves(false); !duringCalls {
		t.Errorf("without Grow the calls did not move the stack: the test cannot tell Grow's effect")
	}
}

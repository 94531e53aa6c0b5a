package inflate

import (
	"io"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"
)

// resetNotInlined calls Reset as a function of its own, as a caller
// that does not inline it does.
//
//go:noinline
func resetNotInlined(d *Decoder, src []byte) { d.Reset(src) }

// TestResetStack: Reset clears the decoder in place. Assigning a
// composite literal with a field set built the 44 KiB Decoder on the
// stack and copied it, so every Reset grew a fresh goroutine's stack,
// and every caller it was inlined into (elfx's openCompressed) had a
// 45 KiB frame: a stack copy that walks every frame deep in a report.
func TestResetStack(t *testing.T) {
	// Only growth may move the stack here: a garbage collection may
	// shrink a goroutine's stack (the runtime starts goroutines with the
	// average stack size seen, which can be above the minimum), which
	// moved it in one CI run.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	d := new(Decoder)
	moved := make(chan bool)
	go func() {
		var local byte
		before := uintptr(unsafe.Pointer(&local))
		resetNotInlined(d, []byte{3, 0})
		moved <- uintptr(unsafe.Pointer(&local)) != before
	}()
	if <-moved {
		t.Error("Reset grew a new goroutine's 2 KiB stack: it builds the Decoder on the stack")
	}
	// Reset still gives a decoder of the new stream: a final fixed
	// block with only the end-of-block code.
	out := make([]byte, 1)
	if n, err := d.Decode(out, 0); n != 0 || err != io.EOF {
		t.Errorf("Decode of an empty stream after Reset: %d bytes, %v; want 0 bytes and io.EOF", n, err)
	}
}

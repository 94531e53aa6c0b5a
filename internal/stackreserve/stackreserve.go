// Package stackreserve grows a goroutine's stack while it is shallow.
//
// A goroutine's stack starts at 2 KiB and doubles when a call needs
// more, by copying: each copy walks every frame on the stack and reads,
// for each function there, its entry in the executable's pclntab (the
// frame's size, its pointer maps). Grown deep in a report (the CFI
// interpreter under the walk, a file open under the analysis), those
// walks read the tables of dozens of functions spread over the 4 MiB
// table, pages that nothing else reads: each a page fault that maps 64
// KiB of the executable (the kernel's fault-around) into the process.
// Grown once at the goroutine's start, the walk has a frame or two.
package stackreserve

// reserve is what a report's goroutines reached on the bench cores
// (16 KiB stacks): this frame and the caller's fit in 16 KiB.
const reserve = 12 << 10

// Grow makes the calling goroutine's stack at least 16 KiB now, while
// its stack is shallow, so that the calls that follow do not grow it
// deep. It keeps no memory beyond the stack the goroutine would have
// grown to anyway.
//
//go:noinline
func Grow() {
	var pad [reserve]byte
	touch(pad[:])
}

// touch keeps pad a real frame: the compiler cannot drop an array whose
// slice a function that is not inlined receives.
//
//go:noinline
func touch(b []byte) { b[0] = 1 }

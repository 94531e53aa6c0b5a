package x86_64

import "github.com/coreunwind/coreunwind/unwind"

// GoFrame sets a parked goroutine's registers from its gobuf
// (unwind.GoArch): rip, rsp, and rbp (amd64's gobuf.bp).
func (Arch) GoFrame(s unwind.GoSched, f *unwind.Frame) {
	f.SetNonZero(RIP, s.PC)
	f.SetNonZero(RSP, s.SP)
	f.SetNonZero(RBP, s.BP)
}

// GoCgoGSlot is where runtime.asmcgocall keeps the goroutine's g on the
// system stack (unwind.GoCgoArch): "MOVQ DI, 8(SP) // save g".
func (Arch) GoCgoGSlot() uint64 { return 8 }

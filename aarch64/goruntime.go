package aarch64

import "github.com/coreunwind/coreunwind/unwind"

// GoFrame sets a parked goroutine's registers from its gobuf
// (unwind.GoArch): pc, sp, the link register x30 and the frame
// pointer x29 (arm64's gobuf.bp).
func (Arch) GoFrame(s unwind.GoSched, f *unwind.Frame) {
	f.SetNonZero(PC, s.PC)
	f.SetNonZero(SP, s.SP)
	f.SetNonZero(X30, s.LR)
	f.SetNonZero(X29, s.BP)
}

// InjectedCallSlot is the slot Go's signal handler takes below the
// faulting frame's stack pointer to fake a call to runtime.sigpanic
// (unwind.InjectedCallArch): alignUp(sys.MinFrameSize, sys.StackAlign)
// bytes, the link register saved at its bottom (the runtime's
// sigctxt.preparePanic, signal_arm64.go).
func (Arch) InjectedCallSlot() (size uint64, lr int) { return 16, X30 }

// GoCgoGSlot is where runtime.asmcgocall keeps the goroutine's g on the
// system stack (unwind.GoCgoArch): "MOVD R4, 0(RSP) // save old g on
// stack".
func (Arch) GoCgoGSlot() uint64 { return 0 }

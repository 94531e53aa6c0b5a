package riscv64

import "github.com/coreunwind/coreunwind/unwind"

// GoFrame sets a parked goroutine's registers from its gobuf
// (unwind.GoArch): pc, sp and the return-address register ra.
func (Arch) GoFrame(s unwind.GoSched, f *unwind.Frame) {
	f.SetNonZero(PC, s.PC)
	f.SetNonZero(SP, s.SP)
	f.SetNonZero(RA, s.LR)
}

// InjectedCallSlot is the slot Go's signal handler takes below the
// faulting frame's stack pointer to fake a call to runtime.sigpanic
// (unwind.InjectedCallArch): alignUp(sys.MinFrameSize, sys.StackAlign)
// bytes, the link register saved at its bottom (the runtime's
// sigctxt.preparePanic, signal_riscv64.go).
func (Arch) InjectedCallSlot() (size uint64, lr int) { return 8, RA }

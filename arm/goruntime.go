package arm

import "github.com/coreunwind/coreunwind/unwind"

// GoFrame sets a parked goroutine's registers from its gobuf
// (unwind.GoArch): pc, sp and the link register.
func (Arch) GoFrame(s unwind.GoSched, f *unwind.Frame) {
	f.SetNonZero(PC, s.PC)
	f.SetNonZero(SP, s.SP)
	f.SetNonZero(LR, s.LR)
}

// InjectedCallSlot is the slot Go's signal handler takes below the
// faulting frame's stack pointer to fake a call to runtime.sigpanic
// (unwind.InjectedCallArch): alignUp(sys.MinFrameSize, sys.StackAlign)
// bytes, the link register saved at its bottom (the runtime's
// sigctxt.preparePanic, signal_arm.go).
func (Arch) InjectedCallSlot() (size uint64, lr int) { return 4, LR }

package loong64

import "github.com/coreunwind/coreunwind/unwind"

// GoFrame sets a parked goroutine's registers from its gobuf
// (unwind.GoArch): pc, sp and the link register ra (loong64's gobuf has
// lr; it has no frame pointer).
func (Arch) GoFrame(s unwind.GoSched, f *unwind.Frame) {
	f.SetNonZero(PC, s.PC)
	f.SetNonZero(SP, s.SP)
	f.SetNonZero(RA, s.LR)
}

// InjectedCallSlot is the slot Go's signal handler takes below the
// faulting frame's stack pointer to fake a call to runtime.sigpanic
// (unwind.InjectedCallArch): one 8-byte word (sys.MinFrameSize), the
// link register saved in it (the runtime's sigctxt.preparePanic,
// signal_loong64.go).
func (Arch) InjectedCallSlot() (size uint64, lr int) { return 8, RA }

package aarch64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

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

// crosscall2's frame (runtime/cgo/asm_arm64.s): "SUB $(8*24), RSP" and
// "STP (R29, R30), (8*22)(RSP)", the C caller's frame pointer and
// return address saved at the top of the frame.
const (
	crosscall2Size = 8 * 24
	crosscall2FP   = 8 * 22
)

// GoCrossCall2Caller is where crosscall2's C caller resumes
// (unwind.GoCrossCall2Arch): its return address and frame pointer from
// their slots, its stack pointer above crosscall2's frame.
func (Arch) GoCrossCall2Caller(mem unwind.AddrSpace, sp uint64) (unwind.GoSched, error) {
	var b [16]byte
	if err := mem.ReadMem(sp+crosscall2FP, b[:]); err != nil {
		return unwind.GoSched{}, fmt.Errorf("crosscall2's saved x29 and x30 at %#x: %w", sp+crosscall2FP, err)
	}
	o := mem.ByteOrder()
	return unwind.GoSched{PC: o.Uint64(b[8:]), SP: sp + crosscall2Size, LR: o.Uint64(b[8:]), BP: o.Uint64(b[:8])}, nil
}

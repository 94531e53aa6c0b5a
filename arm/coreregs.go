package arm

import (
	"fmt"

	"github.com/coreunwind/coreunwind/arm/exidx"
	"github.com/coreunwind/coreunwind/unwind"
)

// gregsSize is NT_PRSTATUS's pr_reg on arm: struct user_regs (uregs[18]:
// r0–r15, cpsr, orig_r0), 4-byte words.
const gregsSize = 18 * 4

// FrameFromThread builds frame 0 from NT_PRSTATUS: r0–r15 and cpsr. The
// pc is the interrupted instruction; cpsr's T bit says whether it is
// Thumb code.
func (Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	if len(th.GRegs) < gregsSize {
		return nil, fmt.Errorf("arm register set: %d bytes, want %d", len(th.GRegs), gregsSize)
	}
	f := unwind.NewFrame(NumRegs)
	same := unwind.SaveLoc{Kind: unwind.LocSame}
	for r := 0; r <= CPSR; r++ {
		f.Set(r, uint64(th.Order.Uint32(th.GRegs[r*4:])), same)
	}
	if cpsr, _ := f.Get(CPSR); cpsr&cpsrMode == 0 {
		pc, _ := f.Get(PC)
		f.Set(CPSR, recoveredCPSR(th.Mem, pc), unwind.SaveLoc{Kind: unwind.LocValue})
	}
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

// cpsrMode are CPSR's mode bits, cpsrUser their value in user mode.
const (
	cpsrMode = 0x1f
	cpsrUser = 0x10
)

// recoveredCPSR is a user-mode CPSR for a thread whose register set
// records none. A user thread's CPSR always has mode bits (0x10), so 0
// is a CPSR nobody recorded: Breakpad's minidump writers put 0 there for
// every thread they read from a core or by ptrace ("not accessible via
// ptrace"), and the T bit, which says how to read frame 0's code, is
// lost. It is recovered where the code tells: a pc that is only
// halfword-aligned is Thumb code, and an EHABI index entry for the
// function records Thumb in its start's bit 0. Elsewhere ARM is assumed.
func recoveredCPSR(as unwind.AddrSpace, pc uint64) uint64 {
	thumb := pc&2 != 0
	if !thumb && as != nil {
		if pi, err := as.FindProcInfo(pc); err == nil {
			if e, ok := pi.Info.(*exidx.Entry); ok {
				thumb = e.Thumb
			}
		}
	}
	if thumb {
		return cpsrUser | cpsrThumb
	}
	return cpsrUser
}

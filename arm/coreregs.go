package arm

import (
	"fmt"

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
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

package sparc64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// gregsSize is NT_PRSTATUS's pr_reg on sparc64 (arch/sparc/include/asm/
// elf_64.h): 36 eight-byte words, %g0–%g7, %o0–%o7, %l0–%l7, %i0–%i7,
// then %tstate, %tpc, %tnpc and %y. The kernel copies the window
// registers from the frame's save area, so a core holds all 32.
const (
	gregsSize = 36 * 8
	tpcSlot   = 33
)

// FrameFromThread builds frame 0 from a thread's NT_PRSTATUS: the 32
// integer registers and the pc (%tpc, the interrupted instruction).
func (Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	if len(th.GRegs) < gregsSize {
		return nil, fmt.Errorf("sparc64 register set: %d bytes, want %d", len(th.GRegs), gregsSize)
	}
	f := unwind.NewFrame(NumRegs)
	for r := 0; r < 32; r++ {
		f.Set(r, th.Order.Uint64(th.GRegs[r*8:]), unwind.SaveLoc{Kind: unwind.LocSame})
	}
	f.Set(G0, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	f.Set(PC, th.Order.Uint64(th.GRegs[tpcSlot*8:]), unwind.SaveLoc{Kind: unwind.LocSame})
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

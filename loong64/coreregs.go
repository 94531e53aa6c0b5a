package loong64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// NT_PRSTATUS's pr_reg is struct user_pt_regs (arch/loongarch/include/
// uapi/asm/ptrace.h): r0–r31, orig_a0, csr_era (the pc), csr_badv, ten
// reserved words; 45 eight-byte words, as qemu-user writes them too.
const (
	gregsSize = 45 * 8
	eraSlot   = 33
	badvSlot  = 34
)

// FrameFromThread builds frame 0 from a thread's NT_PRSTATUS: r0–r31 and
// the pc.
func (Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	if len(th.GRegs) < gregsSize {
		return nil, fmt.Errorf("loongarch64 register set: %d bytes, want %d", len(th.GRegs), gregsSize)
	}
	f := unwind.NewFrame(NumRegs)
	setGRegs(f, th.GRegs, th.Order, func(int) unwind.SaveLoc { return unwind.SaveLoc{Kind: unwind.LocSame} })
	f.Set(PC, th.Order.Uint64(th.GRegs[eraSlot*8:]), unwind.SaveLoc{Kind: unwind.LocSame})
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

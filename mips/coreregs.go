package mips

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// NT_PRSTATUS's pr_reg (arch/mips/include/asm/reg.h, as qemu-user
// writes it too) is 45 words of the ABI's size. In a 32-bit kernel's
// layout (o32 cores) six unused words come first (EF_R0 = 6); a 64-bit
// one starts with $0 (EF_R0 = 0). After $0–$31: lo, hi, cp0_epc (the
// pc), cp0_badvaddr, cp0_status, cp0_cause.
const (
	nGRegs   = 45
	epcAfter = 34 // cp0_epc's index from $0
)

// r0Slot is EF_R0 for the ABI.
func (a Arch) r0Slot() int {
	if a.wide {
		return 0
	}
	return 6
}

// FrameFromThread builds frame 0 from a thread's NT_PRSTATUS: $0–$31 and
// the pc.
func (a Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	w := a.word()
	if len(th.GRegs) < nGRegs*w {
		return nil, fmt.Errorf("%s register set: %d bytes, want %d", a.Name(), len(th.GRegs), nGRegs*w)
	}
	word := func(i int) uint64 {
		if w == 4 {
			return uint64(th.Order.Uint32(th.GRegs[i*4:]))
		}
		return th.Order.Uint64(th.GRegs[i*8:])
	}
	f := unwind.NewFrame(NumRegs)
	r0 := a.r0Slot()
	for r := 0; r < 32; r++ {
		f.Set(r, word(r0+r), unwind.SaveLoc{Kind: unwind.LocSame})
	}
	f.Set(Zero, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	f.Set(PC, word(r0+epcAfter), unwind.SaveLoc{Kind: unwind.LocSame})
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

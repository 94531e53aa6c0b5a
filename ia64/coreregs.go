package ia64

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Linux ia64 elf_gregset_t (arch/ia64/include/asm/elf.h, filled by
// ptrace.c's access_elf_reg): 128 words.
const (
	gregSlots   = 128
	gregNaT     = 32
	gregPR      = 33
	gregB0      = 34
	gregIP      = 42
	gregCFM     = 43
	gregPSR     = 44
	gregRSC     = 45
	gregBSP     = 46 // ar.bsp: the END of the current frame
	gregBSPSTOR = 47
	gregRNAT    = 48
	gregUNAT    = 50
	gregFPSR    = 51
	gregPFS     = 52
	gregLC      = 53
	gregEC      = 54
	ntPRFPREG   = 2
	psrRIShift  = 41
)

// FrameFromThread builds frame 0 from a thread's registers: pr_reg, the
// preserved FRs of NT_PRFPREG, and the frame's stacked registers from
// the backing store in memory. HP-UX threads (see isHPUXThread) are
// decoded from their save area instead.
func (Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	if isHPUXThread(th) {
		return frameFromHPUX(th)
	}
	f, err := frameFromGRegs(th.GRegs, th.Order)
	if err != nil {
		return nil, err
	}
	if fp := th.Notes[ntPRFPREG]; len(fp) >= 128*16 {
		for _, n := range []int{2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31} {
			f.Set(FRReg(n), th.Order.Uint64(fp[16*n:]), unwind.SaveLoc{Kind: unwind.LocSame})
		}
	}
	if th.Mem != nil {
		fillStacked(th.Mem, f)
	}
	return f, nil
}

func frameFromGRegs(g []byte, order binary.ByteOrder) (*unwind.Frame, error) {
	if len(g) < gregSlots*8 {
		return nil, fmt.Errorf("ia64 register set: %d bytes, want %d", len(g), gregSlots*8)
	}
	w := func(slot int) uint64 { return order.Uint64(g[slot*8:]) }
	f := unwind.NewFrame(NumRegs)
	same := unwind.SaveLoc{Kind: unwind.LocSame}
	for r := 1; r < 32; r++ {
		f.Set(r, w(r), same)
	}
	f.Set(0, 0, same)
	for b := 0; b < 8; b++ {
		f.Set(BR0+b, w(gregB0+b), same)
	}
	// The kernel stores the bundle address and keeps the slot in
	// psr.ri; accept a slot in ip's low bits too (some writers put it
	// there).
	psr := w(gregPSR)
	ip := w(gregIP)
	slot := psr >> psrRIShift & 3
	if ip&0xf != 0 && slot == 0 {
		slot = ip & 3
	}
	f.Set(IP, ip&^0xf|slot, same)
	cfm := w(gregCFM) & cfmMask
	f.Set(CFM, cfm, same)
	f.Set(PSR, psr, same)
	f.Set(PR, w(gregPR), same)
	// ar.bsp in a core is the end of the current frame; the frame's r32
	// is sof registers below it.
	f.Set(BSP, RSESkipRegs(w(gregBSP), -cfmSOF(cfm)), unwind.SaveLoc{Kind: unwind.LocValue})
	for _, a := range []struct{ reg, slot int }{
		{BSPSTORE, gregBSPSTOR}, {RNAT, gregRNAT}, {UNAT, gregUNAT}, {FPSR, gregFPSR},
		{PFS, gregPFS}, {LC, gregLC}, {EC, gregEC}, {RSC, gregRSC},
	} {
		f.Set(a.reg, w(a.slot), same)
	}
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

package ia64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// struct sigcontext offsets (Linux asm/sigcontext.h; libunwind offsets.h
// and gdb agree).
const (
	scIP     = 0x028
	scCFM    = 0x030
	scARBSP  = 0x048
	scARRNAT = 0x050
	scARUNAT = 0x060
	scARFPSR = 0x068
	scARPFS  = 0x070
	scARLC   = 0x078
	scPR     = 0x080
	scBR     = 0x088
	scGR     = 0x0c8
	scFR     = 0x1d0
	// sigtrampSCPtr is where the trampoline's frame keeps the sigcontext
	// pointer: sp + 16 (scratch) + arg2's offset in struct sigframe.
	sigtrampSCPtr = 0x20
)

// stepSigtramp recovers the interrupted frame from the sigcontext the
// kernel saved: its exact ip, cfm, sp, the end of its register frame
// (sc_ar_bsp, after a cover) and the registers the kernel stored.
func stepSigtramp(as unwind.AddrSpace, f, c *unwind.Frame) (unwind.StepResult, error) {
	sp, ok := f.Get(SP)
	if !ok {
		return unwind.StepEnd, fmt.Errorf("sigtramp sp: %w", unwind.ErrNoReg)
	}
	sc, err := readWord(as, sp+sigtrampSCPtr)
	if err != nil {
		return unwind.StepEnd, fmt.Errorf("sigcontext pointer at %#x: %w", sp+sigtrampSCPtr, err)
	}
	word := func(off uint64) (uint64, unwind.SaveLoc, error) {
		v, err := readWord(as, sc+off)
		return v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: sc + off}, err
	}
	ip, ipLoc, err := word(scIP)
	if err != nil {
		return unwind.StepEnd, fmt.Errorf("sigcontext at %#x: %w", sc, err)
	}
	cfm, cfmLoc, err1 := word(scCFM)
	bsp, _, err2 := word(scARBSP)
	nsp, spLoc, err3 := word(scGR + 8*12)
	if err1 != nil || err2 != nil || err3 != nil {
		return unwind.StepEnd, fmt.Errorf("sigcontext at %#x: truncated: %w", sc, unwind.ErrUnavailable)
	}
	c.Reset()
	for _, reg := range preserved {
		if v, ok := f.Get(reg); ok {
			c.Set(reg, v, unwind.SaveLoc{Kind: unwind.LocSame})
		}
	}
	cfm &= cfmMask
	c.Set(IP, ip, ipLoc)
	c.Set(CFM, cfm, cfmLoc)
	c.Set(SP, nsp, spLoc)
	// sc_ar_bsp is ar.bsp after a cover: the end of the interrupted
	// frame, so its beginning is sof (not sol) registers lower.
	c.Set(BSP, RSESkipRegs(bsp, -cfmSOF(cfm)), unwind.SaveLoc{Kind: unwind.LocValue})
	for _, w := range []struct {
		reg int
		off uint64
	}{{PFS, scARPFS}, {PR, scPR}, {UNAT, scARUNAT}, {FPSR, scARFPSR}, {LC, scARLC}, {RNAT, scARRNAT}} {
		if v, l, err := word(w.off); err == nil {
			c.Set(w.reg, v, l)
		}
	}
	for b := 0; b < 8; b++ {
		if v, l, err := word(scBR + 8*uint64(b)); err == nil {
			c.Set(BR0+b, v, l)
		}
	}
	// sc_gr[0] holds uc_link; r1..r31 are the interrupted values of the
	// registers the kernel saved (scratch ones and sp, gp, tp).
	for g := 1; g < 32; g++ {
		if g >= 4 && g <= 7 {
			continue // preserved: recovered from younger frames
		}
		if v, l, err := word(scGR + 8*uint64(g)); err == nil {
			c.Set(g, v, l)
		}
	}
	c.CFA, c.HasCFA = nsp, true
	c.Trust = unwind.TrustContext
	c.ExactPC = true
	fillStacked(as, c)
	return unwind.StepCaller, nil
}

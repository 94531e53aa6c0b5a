package ia64

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// HP-UX IA-64 cores keep each thread's registers in a proc_info record
// (corefile hands the whole record in ThreadState.Notes under the key
// below, and the save area — the record from byte 8 on — in GRegs).
//
// No public source gives the byte layout of the IA-64 save_state_t: HP's
// <ia64/sys/uregs.h> is not published, and gdb's ia64-hpux-nat.c only
// names the fields it reads through ttrace (__r1..__r31, __f2..__f127,
// __b0..__b7, __pr, __ip, __cr_ipsr, __cfm, __ar_rsc, __ar_bsp,
// __ar_bspstore, __ar_rnat, __ar_ccv, __ar_unat, __ar_fpsr, __ar_pfs,
// __ar_lc, __ar_ec, and the pseudo-register __reason, zero when the
// thread stopped in a system call). The layout below keeps those fields
// in that order, as 8-byte words (FRs 16 bytes) after a small header. It
// is coreunwind's assumption until a real core shows otherwise; every
// offset is here and nowhere else in the product.
const (
	hpuxSSFlags    = 0x000
	hpuxSSNaT      = 0x008 // NaT bits of r1..r31
	hpuxSSReason   = 0x010 // 0: stopped in a system call
	hpuxSSGR       = 0x020 // r0..r31 (r0's slot unused)
	hpuxSSBR       = 0x120 // b0..b7
	hpuxSSPR       = 0x160
	hpuxSSIP       = 0x168 // bundle address
	hpuxSSIPSR     = 0x170 // psr; ri (bits 41-42) is the slot
	hpuxSSCFM      = 0x178
	hpuxSSRSC      = 0x180
	hpuxSSBSP      = 0x188 // ar.bsp: the end of the thread's register frame
	hpuxSSBSPSTORE = 0x190
	hpuxSSRNAT     = 0x198
	hpuxSSCCV      = 0x1a0
	hpuxSSUNAT     = 0x1a8
	hpuxSSFPSR     = 0x1b0
	hpuxSSPFS      = 0x1b8
	hpuxSSLC       = 0x1c0
	hpuxSSEC       = 0x1c8
	hpuxSSFR       = 0x200 // f0..f127, 16 bytes: sign+exponent word, significand word

	// HPUXSaveStateMin is the smallest save area frame 0 can be built
	// from (everything before the FRs); HPUXSaveStateSize the whole one.
	HPUXSaveStateMin  = 0x1d0
	HPUXSaveStateSize = hpuxSSFR + 128*16
)

// ntHPUXProcInfo is corefile.NTHPUXProcInfo: the Notes key of an HP-UX
// thread's proc_info record. Its presence is how an HP-UX thread is told
// from a Linux one (the arch packages do not import corefile).
const ntHPUXProcInfo uint32 = 0x48505558

// linuxGRegsSize is the Linux pr_reg size: 128 words.
const linuxGRegsSize = gregSlots * 8

// isHPUXThread reports whether th comes from an HP-UX core: corefile
// attaches the proc_info record, or (no notes at all) the register bytes
// are not Linux's 1024-byte pr_reg.
func isHPUXThread(th *unwind.ThreadState) bool {
	if _, ok := th.Notes[ntHPUXProcInfo]; ok {
		return true
	}
	return len(th.Notes) == 0 && len(th.GRegs) != linuxGRegsSize && len(th.GRegs) >= HPUXSaveStateMin
}

// hpuxSaveState is a decoded HP-UX IA-64 save area.
type hpuxSaveState struct {
	frame     *unwind.Frame
	inSyscall bool
}

// decodeHPUXSaveState builds frame 0 from an HP-UX save area without
// reading memory. A thread stopped in a system call has handed its
// output registers to the kernel: its frame ends sol (not sof) registers
// after its beginning (gdb's ia64_hpux_size_of_register_frame).
func decodeHPUXSaveState(ss []byte, order binary.ByteOrder) (*hpuxSaveState, error) {
	return decodeHPUXSaveStateAt(ss, order, nil)
}

// decodeHPUXSaveStateAt is decodeHPUXSaveState for a save area that is
// in the target's memory at *at (a signal's ucontext): every register
// read from it records that address as its save location.
func decodeHPUXSaveStateAt(ss []byte, order binary.ByteOrder, at *uint64) (*hpuxSaveState, error) {
	if len(ss) < HPUXSaveStateMin {
		return nil, fmt.Errorf("HP-UX ia64 save state: %d bytes, want at least %d", len(ss), HPUXSaveStateMin)
	}
	f := unwind.NewFrame(NumRegs)
	same := unwind.SaveLoc{Kind: unwind.LocSame}
	set := func(reg, off int, v uint64) {
		if at != nil {
			f.Set(reg, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: *at + uint64(off)})
			return
		}
		f.Set(reg, v, same)
	}
	w := func(off int) uint64 { return order.Uint64(ss[off:]) }
	f.Set(0, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	for r := 1; r < 32; r++ {
		set(r, hpuxSSGR+8*r, w(hpuxSSGR+8*r))
	}
	for b := 0; b < 8; b++ {
		set(BR0+b, hpuxSSBR+8*b, w(hpuxSSBR+8*b))
	}
	psr, ip := w(hpuxSSIPSR), w(hpuxSSIP)
	slot := psr >> psrRIShift & 3
	if ip&0xf != 0 && slot == 0 {
		slot = ip & 3
	}
	set(IP, hpuxSSIP, ip&^0xf|slot)
	cfm := w(hpuxSSCFM) & cfmMask
	set(CFM, hpuxSSCFM, cfm)
	set(PSR, hpuxSSIPSR, psr)
	set(PR, hpuxSSPR, w(hpuxSSPR))
	inSyscall := w(hpuxSSReason) == 0
	size := cfmSOF(cfm)
	if inSyscall {
		size = cfmSOL(cfm)
	}
	f.Set(BSP, RSESkipRegs(w(hpuxSSBSP), -size), unwind.SaveLoc{Kind: unwind.LocValue})
	for _, a := range []struct{ reg, off int }{
		{BSPSTORE, hpuxSSBSPSTORE}, {RNAT, hpuxSSRNAT}, {UNAT, hpuxSSUNAT}, {FPSR, hpuxSSFPSR},
		{PFS, hpuxSSPFS}, {LC, hpuxSSLC}, {EC, hpuxSSEC}, {RSC, hpuxSSRSC},
	} {
		set(a.reg, a.off, w(a.off))
	}
	if len(ss) >= HPUXSaveStateSize {
		for _, n := range preservedFRs {
			set(FRReg(n), hpuxSSFR+16*n+8, w(hpuxSSFR+16*n+8))
		}
	}
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return &hpuxSaveState{frame: f, inSyscall: inSyscall}, nil
}

// preservedFRs are the FRs a caller keeps across calls (f2-f5, f16-f31).
var preservedFRs = []int{2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}

// frameFromHPUX builds frame 0 of an HP-UX thread, its stacked registers
// from the backing store; in a system call only the sol registers the
// thread kept are its own.
func frameFromHPUX(th *unwind.ThreadState) (*unwind.Frame, error) {
	st, err := decodeHPUXSaveState(th.GRegs, th.Order)
	if err != nil {
		return nil, err
	}
	f := st.frame
	if th.Mem != nil {
		n := int64(-1)
		if st.inSyscall {
			cfm, _ := f.Get(CFM)
			n = cfmSOL(cfm)
		}
		fillStackedN(th.Mem, f, n)
	}
	return f, nil
}

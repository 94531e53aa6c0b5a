package aarch64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Linux note types this package reads beside NT_PRSTATUS.
const (
	ntPRFPReg  = 2     // NT_PRFPREG: struct user_fpsimd_state
	ntPACMask  = 0x406 // NT_ARM_PAC_MASK: struct user_pac_mask
	gregsSize  = 34 * 8
	fpsimdSize = 32*16 + 8
)

// FrameFromThread builds frame 0 from a thread's notes. NT_PRSTATUS's
// pr_reg is struct user_pt_regs (asm/ptrace.h): regs[31] (x0–x30), sp,
// pc, pstate. NT_PRFPREG, when present, is struct user_fpsimd_state:
// vregs[32] as 128-bit little-endian values, then fpsr and fpcr; the low
// 64 bits of each become v0–v31. NT_ARM_PAC_MASK, when present, gives the
// bits pointer authentication uses in code addresses (pac.go).
func (Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	if len(th.GRegs) < gregsSize {
		return nil, fmt.Errorf("aarch64 register set: %d bytes, want %d", len(th.GRegs), gregsSize)
	}
	order := th.Order
	f := unwind.NewFrame(NumRegs)
	same := unwind.SaveLoc{Kind: unwind.LocSame}
	for r := 0; r <= PC; r++ { // x0–x30, sp, pc: the first 33 slots, in this order
		f.Set(r, order.Uint64(th.GRegs[r*8:]), same)
	}
	fp := th.FPRegs
	if fp == nil {
		fp = th.Notes[ntPRFPReg]
	}
	if len(fp) >= fpsimdSize {
		for i := 0; i < 32; i++ {
			f.Set(V0+i, order.Uint64(fp[i*16:]), same)
		}
	}
	if m := th.Notes[ntPACMask]; len(m) >= 16 {
		// struct user_pac_mask { data_mask, insn_mask }: return
		// addresses are code pointers, signed with an instruction key.
		f.Set(PACMask, order.Uint64(m[8:]), unwind.SaveLoc{Kind: unwind.LocValue})
	}
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

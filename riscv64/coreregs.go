package riscv64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Linux note types this package reads beside NT_PRSTATUS.
const (
	ntPRFPReg = 2 // NT_PRFPREG: union __riscv_fp_state, the D extension's f[32] then fcsr
	gregsSize = 32 * 8
	fpSize    = 32*8 + 4
)

// FrameFromThread builds frame 0 from a thread's notes. NT_PRSTATUS's
// pr_reg is struct user_regs_struct (arch/riscv/include/uapi/asm/ptrace.h):
// pc, then x1 (ra) to x31 in order, 32 eight-byte words; x0 is zero.
// NT_PRFPREG, when present, gives f0–f31 (the D extension's 64-bit
// registers; qemu-user and the kernel both write that layout).
func (Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	if len(th.GRegs) < gregsSize {
		return nil, fmt.Errorf("riscv64 register set: %d bytes, want %d", len(th.GRegs), gregsSize)
	}
	f := unwind.NewFrame(NumRegs)
	setGRegs(f, th.GRegs, th.Order, func(int) unwind.SaveLoc { return unwind.SaveLoc{Kind: unwind.LocSame} })
	fp := th.FPRegs
	if fp == nil {
		fp = th.Notes[ntPRFPReg]
	}
	if len(fp) >= fpSize {
		for i := 0; i < 32; i++ {
			f.Set(F0+i, th.Order.Uint64(fp[i*8:]), unwind.SaveLoc{Kind: unwind.LocSame})
		}
	}
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

package sh

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// NT_PRSTATUS's pr_reg is struct pt_regs (arch/sh/include/uapi/asm/
// ptrace_32.h), as qemu-user writes it too: r0–r15, pc, pr, sr, gbr,
// mach, macl, tra; 23 four-byte words.
const (
	nGRegs    = 23
	gregsSize = nGRegs * 4
	pcSlot    = 16
	gbrSlot   = 19
)

// pt_regs' order after r0–r15, and the signal context's (struct
// sigcontext: sc_gregs[16], sc_pc, sc_pr, sc_sr, sc_gbr, sc_mach,
// sc_macl): the register each word is, -1 for sr (no DWARF number).
var afterGRegs = [6]int{PC, PR, -1, GBR, MACH, MACL}

// setRegs fills r0–r15, pc, pr, gbr, mach and macl from the first 22
// words of pt_regs or a signal context (word i); loc says where word i
// was.
func setRegs(f *unwind.Frame, word func(i int) uint64, loc func(i int) unwind.SaveLoc) {
	for i := 0; i < 16; i++ {
		f.Set(i, word(i), loc(i))
	}
	for i, r := range afterGRegs {
		if r >= 0 {
			f.Set(r, word(16+i), loc(16+i))
		}
	}
}

// FrameFromThread builds frame 0 from a thread's NT_PRSTATUS.
func (Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	if len(th.GRegs) < gregsSize {
		return nil, fmt.Errorf("sh register set: %d bytes, want %d", len(th.GRegs), gregsSize)
	}
	f := unwind.NewFrame(NumRegs)
	word := func(i int) uint64 { return uint64(th.Order.Uint32(th.GRegs[i*4:])) }
	setRegs(f, word, func(int) unwind.SaveLoc { return unwind.SaveLoc{Kind: unwind.LocSame} })
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

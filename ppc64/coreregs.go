package ppc64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// The kernel's struct pt_regs as elf_gregset_t (arch/powerpc/include/
// uapi/asm/ptrace.h, ELF_NGREG 48): gpr[32], nip, msr, orig_gpr3, ctr,
// link, xer, ccr, softe, trap, dar, dsisr, result, then padding. The
// signal context's gp_regs has the same layout (sigframe.go).
const (
	ptNIP     = 32
	ptCTR     = 35
	ptLink    = 36
	ptXER     = 37
	ptCCR     = 38
	ptWords   = 44 // through result; the note has 48 (NT_PRSTATUS of 504 bytes)
	gregsSize = ptWords * 8
	// NT_FPREGSET: fpr[32] as doubles, then fpscr.
	fpregsSize = 32 * 8
)

// FrameFromThread builds frame 0 from NT_PRSTATUS's pr_reg (pt_regs) and,
// when present, NT_FPREGSET's f0–f31.
func (Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	if len(th.GRegs) < gregsSize {
		return nil, fmt.Errorf("ppc64 register set: %d bytes, want %d", len(th.GRegs), gregsSize)
	}
	f := unwind.NewFrame(NumRegs)
	setGRegs(f, th.GRegs, th.Order.Uint64, func(int) unwind.SaveLoc { return unwind.SaveLoc{Kind: unwind.LocSame} })
	if len(th.FPRegs) >= fpregsSize {
		same := unwind.SaveLoc{Kind: unwind.LocSame}
		for i := 0; i < 32; i++ {
			f.Set(F0+i, th.Order.Uint64(th.FPRegs[i*8:]), same)
		}
	}
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

// setGRegs sets the registers of a pt_regs image (at least gregsSize
// bytes; word reads a slot) in f; loc says where slot i was saved.
func setGRegs(f *unwind.Frame, b []byte, word func([]byte) uint64, loc func(slot int) unwind.SaveLoc) {
	for r := 0; r < 32; r++ {
		f.Set(r, word(b[r*8:]), loc(r))
	}
	for _, s := range []struct{ slot, reg int }{
		{ptNIP, PC}, {ptCTR, CTR}, {ptLink, LR}, {ptXER, XER}, {ptCCR, CR},
	} {
		f.Set(s.reg, word(b[s.slot*8:]), loc(s.slot))
	}
}

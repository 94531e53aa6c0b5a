package ppc64

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// The kernel's struct pt_regs as elf_gregset_t (arch/powerpc/include/
// uapi/asm/ptrace.h, ELF_NGREG 48): gpr[32], nip, msr, orig_gpr3, ctr,
// link, xer, ccr, softe (mq in 32-bit pt_regs), trap, dar, dsisr, result,
// then padding, in words of the variant's size. The signal context's
// gp_regs has the same layout (sigframe.go).
const (
	ptNIP   = 32
	ptCTR   = 35
	ptLink  = 36
	ptXER   = 37
	ptCCR   = 38
	ptWords = 44 // through result; the note has 48 (NT_PRSTATUS of 504 bytes, 268 in 32-bit cores)
	// NT_FPREGSET: fpr[32] as doubles, then fpscr.
	fpregsSize = 32 * 8
)

// FrameFromThread builds frame 0 from NT_PRSTATUS's pr_reg (pt_regs) and,
// when present, NT_FPREGSET's f0–f31 (doubles in both variants).
func (a Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	l := a.layout()
	if len(th.GRegs) < l.gregsSize() {
		return nil, fmt.Errorf("%s register set: %d bytes, want %d", l.name, len(th.GRegs), l.gregsSize())
	}
	f := unwind.NewFrame(NumRegs)
	l.setGRegs(f, th.GRegs, th.Order, func(int) unwind.SaveLoc { return unwind.SaveLoc{Kind: unwind.LocSame} })
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
// bytes, in byte order o) in f; loc says where slot i was saved.
func (l *layout) setGRegs(f *unwind.Frame, b []byte, o binary.ByteOrder, loc func(slot int) unwind.SaveLoc) {
	slot := func(i int) uint64 { return l.wordAt(o, b[i*int(l.word):]) }
	for r := 0; r < 32; r++ {
		f.Set(r, slot(r), loc(r))
	}
	for _, s := range []struct{ slot, reg int }{
		{ptNIP, PC}, {ptCTR, CTR}, {ptLink, LR}, {ptXER, XER}, {ptCCR, CR},
	} {
		f.Set(s.reg, slot(s.slot), loc(s.slot))
	}
}

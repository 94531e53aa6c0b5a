package s390x

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Linux note types this package reads beside NT_PRSTATUS.
const (
	ntPRFPReg = 2 // NT_PRFPREG: s390_fp_regs
	// s390_fp_regs: fpc (32 bits) and padding, then fprs[16] by register
	// number: 136 bytes.
	fpregsSize = 8 + 16*8
)

// FrameFromThread builds frame 0 from a thread's notes: the PSW, the
// general and access registers from NT_PRSTATUS, the floating-point
// registers from NT_PRFPREG when the core has it (kernel cores do,
// qemu-user's do not). They matter for unwinding: a leaf function that
// allocates a frame keeps the caller's r15 in f0.
//
// NT_PRSTATUS's pr_reg is s390_regs (arch/s390/include/uapi/asm/
// ptrace.h): psw {mask, addr}, gprs[16], acrs[16] (32-bit each),
// orig_gpr2, in words of the variant: 216 bytes (a 336-byte prstatus, as
// real cores have), 140 in 31-bit cores (a 224-byte prstatus). A 64-bit
// kernel adds NT_S390_HIGH_GPRS to a 31-bit process's core, the upper
// halves of its 64-bit registers: they are not part of any value the
// 31-bit program computes with (addresses, the stack), so frames keep
// the 32-bit registers the ABI defines, as eu-stack and gdb show them.
func (a Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	l := a.layout()
	w := int(l.word)
	if gregsSize := l.acrsOff() + 16*4 + w; len(th.GRegs) < gregsSize {
		return nil, fmt.Errorf("%s register set: %d bytes, want %d", l.name, len(th.GRegs), gregsSize)
	}
	order := th.Order
	f := unwind.NewFrame(NumRegs)
	same := unwind.SaveLoc{Kind: unwind.LocSame}
	f.Set(PSWMask, l.wordAt(order, th.GRegs[0:]), same)
	f.Set(PC, l.wordAt(order, th.GRegs[w:])&l.addrMask, same)
	for r := 0; r < 16; r++ {
		f.Set(R0+r, l.wordAt(order, th.GRegs[l.gprsOff()+r*w:]), same)
		f.Set(A0+r, uint64(order.Uint32(th.GRegs[l.acrsOff()+r*4:])), same)
	}
	fp := th.FPRegs
	if fp == nil {
		fp = th.Notes[ntPRFPReg]
	}
	if len(fp) >= fpregsSize {
		setFPRs(f, fp[8:], order.Uint64, same)
	}
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

// setFPRs sets f0–f15 from 16 words in register-number order (the
// layout of both s390_fp_regs and the signal context's fprs).
func setFPRs(f *unwind.Frame, b []byte, word func([]byte) uint64, loc unwind.SaveLoc) {
	for n := 0; n < 16; n++ {
		f.Set(fprReg(n), word(b[n*8:]), loc)
	}
}

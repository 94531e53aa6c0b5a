package s390x

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// The signal trampolines: "svc 173" (__NR_rt_sigreturn), for handlers
// installed with SA_SIGINFO (glibc's sigaction always sets it), and "svc
// 119" (__NR_sigreturn). The kernel puts the handler's return address in
// r14: its vDSO's __kernel_rt_sigreturn / __kernel_sigreturn, or (older
// kernels, and qemu-user, which maps a page of its own) the svc it wrote
// into the signal frame. A handler returns to the svc itself, so the
// trampoline frame's pc is the instruction.
const (
	insnSvcRTSigreturn = 0x0aad
	insnSvcSigreturn   = 0x0a77
)

// trampolineAt says which trampoline's svc is at pc, if any.
func trampolineAt(as unwind.AddrSpace, pc uint64) cfirow.Kind {
	var b [2]byte
	if pc%2 != 0 || as.ReadMem(pc, b[:]) != nil {
		return cfirow.KindNone
	}
	switch uint16(b[0])<<8 | uint16(b[1]) {
	case insnSvcRTSigreturn:
		return ruleRTSigreturn
	case insnSvcSigreturn:
		return ruleSigreturn
	}
	return cfirow.KindNone
}

// The signal frames (arch/s390/kernel/signal.c; qemu's
// linux-user/s390x/signal.c has the same layout). r15 in the trampoline
// is the frame's address. Both start with the 160-byte save area of the
// handler's caller. struct rt_sigframe then has the 2-byte svc, siginfo
// (128 bytes, 8-aligned: at 168) and struct ucontext_extended: uc_flags,
// uc_link, uc_stack (24 bytes), then uc_mcontext, a _sigregs, at 336.
// struct sigframe then has struct sigcontext: oldmask (one word), and
// sregs, the address of the frame's _sigregs.
//
// _sigregs is psw {mask, addr}, gprs[16], acrs[16] (32-bit), then
// s390_fp_regs: fpc and padding, fprs[16].
const (
	rtSigregsOff   = frameOffset + 8 + 128 + 40
	sigSregsPtrOff = frameOffset + 8
	sigregsGPRs    = 16
	sigregsACRs    = sigregsGPRs + 16*8
	sigregsFPRs    = sigregsACRs + 16*4 + 8
	sigregsSize    = sigregsFPRs + 16*8
)

// stepSigreturn recovers the interrupted frame from the signal context
// the kernel saved: the PSW (the exact pc), every general, access and
// floating-point register.
func stepSigreturn(as unwind.AddrSpace, rt bool, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: r15", unwind.ErrNoReg)
	}
	base := sp + rtSigregsOff
	if !rt {
		p, err := readWord(as, sp+sigSregsPtrOff)
		if err != nil {
			return fmt.Errorf("signal frame at %#x: sigcontext: %w", sp, err)
		}
		base = p
	}
	var buf [sigregsSize]byte
	if err := as.ReadMem(base, buf[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: registers at %#x: %w", sp, base, err)
	}
	order := as.ByteOrder()
	at := func(off int) unwind.SaveLoc { return unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + uint64(off)} }
	caller.Set(PSWMask, order.Uint64(buf[0:]), at(0))
	caller.Set(PC, order.Uint64(buf[8:]), at(8))
	for r := 0; r < 16; r++ {
		caller.Set(R0+r, order.Uint64(buf[sigregsGPRs+r*8:]), at(sigregsGPRs+r*8))
		caller.Set(A0+r, uint64(order.Uint32(buf[sigregsACRs+r*4:])), at(sigregsACRs+r*4))
		caller.Set(fprReg(r), order.Uint64(buf[sigregsFPRs+r*8:]), at(sigregsFPRs+r*8))
	}
	callee.Signal = true
	caller.CFA, caller.HasCFA = sp, true
	caller.ExactPC = true
	caller.Trust = unwind.TrustContext
	return nil
}

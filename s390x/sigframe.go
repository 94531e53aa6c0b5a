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

// The signal frames (arch/s390/kernel/signal.c, compat_signal.c for
// 31-bit processes; qemu's linux-user/s390x/signal.c has the same
// layout). r15 in the trampoline is the frame's address. Both start with
// the save area of the handler's caller (frameOffset). struct
// rt_sigframe then has the 2-byte svc, siginfo (128 bytes) and struct
// ucontext: uc_flags, uc_link, uc_stack, then uc_mcontext, a _sigregs,
// at l.rtSigregsOff (336; 256 in 31-bit frames). struct sigframe then
// has struct sigcontext: oldmask (8 bytes in both), and sregs, the
// address of the frame's _sigregs.
//
// _sigregs is psw {mask, addr}, gprs[16] (words), acrs[16] (32-bit),
// then s390_fp_regs: fpc and padding, fprs[16] (64-bit in both).
const sigSregsPtrOff = 8 // from the end of the save area

// stepSigreturn recovers the interrupted frame from the signal context
// the kernel saved: the PSW (the exact pc), every general, access and
// floating-point register.
func (l *layout) stepSigreturn(as unwind.AddrSpace, rt bool, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: r15", unwind.ErrNoReg)
	}
	base := sp + l.rtSigregsOff
	if !rt {
		p, err := l.readWord(as, sp+l.frameOffset+sigSregsPtrOff)
		if err != nil {
			return fmt.Errorf("signal frame at %#x: sigcontext: %w", sp, err)
		}
		base = p
	}
	w := int(l.word)
	gprs, acrs := l.gprsOff(), l.acrsOff()
	fprs := acrs + 16*4 + 8
	buf := make([]byte, fprs+16*8)
	if err := as.ReadMem(base, buf); err != nil {
		return fmt.Errorf("signal frame at %#x: registers at %#x: %w", sp, base, err)
	}
	order := as.ByteOrder()
	at := func(off int) unwind.SaveLoc { return unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + uint64(off)} }
	caller.Set(PSWMask, l.wordAt(order, buf[0:]), at(0))
	caller.Set(PC, l.wordAt(order, buf[w:])&l.addrMask, at(w))
	for r := 0; r < 16; r++ {
		caller.Set(R0+r, l.wordAt(order, buf[gprs+r*w:]), at(gprs+r*w))
		caller.Set(A0+r, uint64(order.Uint32(buf[acrs+r*4:])), at(acrs+r*4))
		caller.Set(fprReg(r), order.Uint64(buf[fprs+r*8:]), at(fprs+r*8))
	}
	callee.Signal = true
	caller.CFA, caller.HasCFA = sp, true
	caller.ExactPC = true
	caller.Trust = unwind.TrustContext
	return nil
}

// StepSignalHandler reads the SA_SIGINFO signal frame (struct
// rt_sigframe) at a signal handler's CFA, its entry r15
// (unwind.SignalFrameArch): the trampoline's r15.
func (a Arch) StepSignalHandler(as unwind.AddrSpace, cfa uint64, caller *unwind.Frame) error {
	return a.layout().stepSigreturn(as, true, unwind.TrampolineFrame(NumRegs, SP, cfa), caller)
}

// SiginfoAddr is the siginfo the kernel saved in signal frame f
// (unwind.SiginfoArch): in struct rt_sigframe, after the save area and
// the 2-byte svc, at the siginfo's alignment (a word). A sigframe (a
// handler installed without SA_SIGINFO, trampoline svc 119) has none.
func (a Arch) SiginfoAddr(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (uint64, bool) {
	sp, ok := f.Get(SP)
	if !ok {
		return 0, false
	}
	if pc, ok := f.Get(PC); !ok || trampolineAt(as, pc) != ruleRTSigreturn {
		return 0, false
	}
	l := a.layout()
	return sp + l.frameOffset + l.word, true
}

// FaultPageSize is the granule of the kernel's (and qemu-user's) SIGSEGV
// si_addr (unwind.FaultPageArch): the translation-exception
// identification names the 4 KiB page, not the byte.
func (Arch) FaultPageSize() uint64 { return 4096 }

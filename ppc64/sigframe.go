package ppc64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// The rt_sigreturn trampoline: "li r0,172 (__NR_rt_sigreturn); sc". The
// kernel's 64-bit vDSO has it as __kernel_sigtramp_rt64, preceded by
// "addi r1,r1,128" (popping the __SIGNAL_FRAMESIZE the kernel reserved
// below the frame), and a handler returns to that addi. qemu-user's
// trampoline page holds the two instructions alone, and a handler returns
// to the li. 32-bit processes also have the sigreturn trampoline, "li
// r0,119 (__NR_sigreturn); sc" (the handlers of signal()); neither of
// theirs (__kernel_sigtramp32 and __kernel_sigtramp_rt32 in the vDSO,
// qemu's page) has an addi: the handler returns to the li.
const (
	insnLiR0Sigreturn   = 0x380000ac // addi r0,0,172
	insnLiR0Sigreturn32 = 0x38000077 // addi r0,0,119
	insnSc              = 0x44000002
	insnAddiR1Frame     = 0x38210080 // addi r1,r1,128
	signalFrameSize     = 128        // __SIGNAL_FRAMESIZE
)

// sigreturnAt returns the address of the trampoline's li when pc is at
// its addi (64-bit), its li or its sc.
func (l *layout) sigreturnAt(as unwind.AddrSpace, pc uint64) (uint64, bool) {
	for _, li := range []uint64{pc + 4, pc, pc - 4} {
		if li == pc+4 && l.ppc32 {
			continue
		}
		a, ok1 := readInsn(as, li)
		b, ok2 := readInsn(as, li+4)
		if !ok1 || !ok2 || b != insnSc || !(a == insnLiR0Sigreturn || l.ppc32 && a == insnLiR0Sigreturn32) {
			continue
		}
		if li == pc+4 { // pc must be the vDSO's addi
			if c, ok := readInsn(as, pc); !ok || c != insnAddiR1Frame {
				continue
			}
		}
		return li, true
	}
	return 0, false
}

// The kernel's struct rt_sigframe (arch/powerpc/kernel/signal_64.c)
// starts with struct ucontext, 128 bytes above the r1 the handler gets:
// uc_flags, uc_link, uc_stack (24 bytes), uc_sigmask and 15 more sigsets
// of growth room (128 bytes), then uc_mcontext, struct sigcontext, at
// 168 (asm/ucontext.h). struct sigcontext (asm/sigcontext.h) is
// _unused[4], signal, _pad0, handler, oldmask, regs (a pointer to its own
// gp_regs), then gp_regs, an elf_gregset_t in pt_regs order
// (coreregs.go). qemu-user (7.2) has the same ucontext, but 144 bytes
// above r1 (seen in its cores: uc_stack.ss_flags, the signal number and
// the regs pointer are all 16 bytes further up than the kernel's).
const (
	qemuFrameSize = 144
	ucMcontext    = 168
	scRegsPtr     = ucMcontext + 56
	scGPRegs      = ucMcontext + 64
)

// stepSigreturn recovers the interrupted frame from the signal context:
// every general register, lr, ctr, xer, cr and the exact pc. Where the
// ucontext is depends on who built the frame and on whether the vDSO's
// addi already popped the 128 bytes; the sigcontext's regs pointer,
// which points at its own gp_regs, says which candidate is the context.
func (l *layout) stepSigreturn(as unwind.AddrSpace, k cfirow.Kind, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: sp", unwind.ErrNoReg)
	}
	if l.ppc32 {
		return l.stepSigreturn32(as, k == ruleRTSigreturn, sp, callee, caller)
	}
	pc, _ := callee.Get(PC)
	uc, ok := l.ucontext(as, sp, pc)
	if !ok {
		return fmt.Errorf("signal frame at sp %#x: no ucontext whose regs pointer points at its gp_regs: %w", sp, unwind.ErrBadFrame)
	}
	return l.contextRegs(as, uc+scGPRegs, sp, callee, caller)
}

// ucontext finds the 64-bit signal frame's ucontext for the trampoline
// frame at sp and pc.
func (l *layout) ucontext(as unwind.AddrSpace, sp, pc uint64) (uint64, bool) {
	li, _ := l.sigreturnAt(as, pc)
	candidates := []uint64{sp + signalFrameSize, sp + qemuFrameSize, sp}
	if pc >= li {
		if prev, ok := readInsn(as, li-4); ok && prev == insnAddiR1Frame {
			candidates = []uint64{sp, sp + signalFrameSize} // the addi has run
		}
	}
	for _, uc := range candidates {
		if regs, err := l.readWord(as, uc+scRegsPtr); err == nil && regs == uc+scGPRegs {
			return uc, true
		}
	}
	return 0, false
}

// siginfoOffs are where the 64-bit rt_sigframe's siginfo is, from its
// ucontext: after the 1696-byte struct ucontext, _unused[2], the
// trampoline (7 words in the kernel's, 6 in qemu-user's) and two
// pointers; the kernel's with transactional memory has a second
// ucontext before them. The kernel fills the pointers (pinfo, puc);
// qemu-user does not.
var siginfoOffs = []uint64{1696 + 16 + 24 + 16, 1696 + 16 + 28 + 4 + 16, 2*1696 + 16 + 28 + 4 + 16}

// scSignal is the signal number in the 64-bit ucontext's sigcontext.
const scSignal = ucMcontext + 32

// SiginfoAddr is the siginfo the kernel saved in signal frame f
// (unwind.SiginfoArch). The 32-bit struct rt_sigframe starts with it,
// 16 bytes above the handler's frame header. The 64-bit one has it last,
// at one of siginfoOffs past the ucontext: the one whose si_signo is
// the signal the sigcontext records.
func (a Arch) SiginfoAddr(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (uint64, bool) {
	sp, ok1 := f.Get(SP)
	pc, ok2 := f.Get(PC)
	if !ok1 || !ok2 {
		return 0, false
	}
	l := a.layout()
	li, ok := l.sigreturnAt(as, pc)
	if !ok {
		return 0, false
	}
	if l.ppc32 {
		if insn, ok := readInsn(as, li); !ok || insn != insnLiR0Sigreturn {
			return 0, false // a sigframe: no siginfo
		}
		return sp + rtSigFrameOff32 - siginfoSize, true
	}
	uc, ok := l.ucontext(as, sp, pc)
	if !ok {
		return 0, false
	}
	sig, err := cfirow.ReadSized(as, uc+scSignal, 4)
	if err != nil || sig == 0 || sig > 64 {
		return 0, false
	}
	for _, off := range siginfoOffs {
		if signo, err := cfirow.ReadSized(as, uc+off, 4); err == nil && signo == sig {
			return uc + off, true
		}
	}
	return 0, false
}

// siginfoSize is sizeof(siginfo_t).
const siginfoSize = 128

// The 32-bit signal frames (arch/powerpc/kernel/signal_32.c, the same in
// qemu-user's linux-user/ppc/signal.c). The kernel leaves
// __SIGNAL_FRAMESIZE32 (64) bytes below each for the handler's frame
// header. struct sigframe (handlers of signal(), "li r0,119") starts
// with struct sigcontext (_unused[4], signal, handler, oldmask, then
// regs, a pointer to the mcontext after it, which starts with the
// gregs). struct rt_sigframe (SA_SIGINFO, "li r0,172") has 16 more bytes
// below it, then siginfo (128 bytes), then struct ucontext32: uc_flags,
// uc_link, uc_stack (12 bytes), uc_pad[7], then uc_regs, a pointer to
// uc_mcontext, 192 bytes into it after the signal masks. Both pointers
// pointing where they must is what tells a context from other words.
const (
	sigFrameSize32  = 64
	scRegsPtr32     = 28
	scGRegs32       = 32
	rtSigFrameOff32 = sigFrameSize32 + 16 + 128
	ucRegsPtr32     = 48
	ucMcontext32    = 192
)

// stepSigreturn32 recovers the frame a 32-bit signal interrupted from
// the sigcontext (rt false) or the ucontext the trampoline's r1 points
// below.
func (l *layout) stepSigreturn32(as unwind.AddrSpace, rt bool, sp uint64, callee, caller *unwind.Frame) error {
	ptr, gregs := sp+sigFrameSize32+scRegsPtr32, sp+sigFrameSize32+scGRegs32
	if rt {
		ptr, gregs = sp+rtSigFrameOff32+ucRegsPtr32, sp+rtSigFrameOff32+ucMcontext32
	}
	if regs, err := l.readWord(as, ptr); err != nil || regs != gregs {
		return fmt.Errorf("signal frame at sp %#x: the context's regs pointer at %#x does not point at its gregs (%#x): %w", sp, ptr, gregs, unwind.ErrBadFrame)
	}
	return l.contextRegs(as, gregs, sp, callee, caller)
}

// contextRegs sets caller's registers from the pt_regs image a signal
// context holds at base.
func (l *layout) contextRegs(as unwind.AddrSpace, base, sp uint64, callee, caller *unwind.Frame) error {
	buf := make([]byte, l.gregsSize())
	if err := as.ReadMem(base, buf); err != nil {
		return fmt.Errorf("signal context at %#x: %w", base, err)
	}
	l.setGRegs(caller, buf, as.ByteOrder(), func(slot int) unwind.SaveLoc {
		return unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + uint64(slot)*l.word}
	})
	callee.Signal = true
	caller.CFA, caller.HasCFA = sp, true
	caller.ExactPC = true
	caller.Trust = unwind.TrustContext
	return nil
}

// StepSignalHandler reads the SA_SIGINFO signal frame at a signal
// handler's CFA, its entry r1 (unwind.SignalFrameArch): the r1 the
// trampoline starts with, the trampoline unknown (its ucontext is found
// among the candidates by its regs pointer).
func (a Arch) StepSignalHandler(as unwind.AddrSpace, cfa uint64, caller *unwind.Frame) error {
	return a.layout().stepSigreturn(as, ruleRTSigreturn, unwind.TrampolineFrame(NumRegs, SP, cfa), caller)
}

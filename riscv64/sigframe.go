package riscv64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// The rt_sigreturn trampoline: "li a7, 139 (__NR_rt_sigreturn); ecall".
// The kernel's vDSO has it as __vdso_rt_sigreturn; qemu-user maps a page
// holding the same two instructions; glibc has no trampoline of its own
// on riscv. A handler returns to it.
const (
	insnLiA7Sigreturn = 0x08b00893
	insnEcall         = 0x00000073
)

// isSigreturn reports whether pc is the trampoline's first instruction,
// or its ecall (a thread interrupted in the system call itself).
func isSigreturn(as unwind.AddrSpace, pc uint64) bool {
	for _, start := range []uint64{pc, pc - 4} {
		a, ok1 := readInsn(as, start)
		b, ok2 := readInsn(as, start+4)
		if ok1 && ok2 && a == insnLiA7Sigreturn && b == insnEcall {
			return true
		}
	}
	return false
}

// When the handler returns into the trampoline, sp points at the
// kernel's struct rt_sigframe (arch/riscv/kernel/signal.c): siginfo (128
// bytes), then struct ucontext (uapi asm/ucontext.h): uc_flags, uc_link,
// uc_stack (24 bytes), uc_sigmask and its padding to a 1024-bit sigset
// (128 bytes), then uc_mcontext, aligned to 16 (its FP union holds the Q
// extension's 16-byte-aligned registers), at offset 176. struct
// sigcontext begins with sc_regs, a struct user_regs_struct (pc, x1..x31),
// followed by the D extension's f0–f31.
const (
	scRegsOff   = 128 + 176
	scFPRegsOff = scRegsOff + 32*8
)

// stepSigreturn recovers the interrupted frame from the signal context
// the kernel saved: every general register, sp and the exact pc, and the
// floating-point registers.
func stepSigreturn(as unwind.AddrSpace, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: sp", unwind.ErrNoReg)
	}
	base := sp + scRegsOff
	var buf [32 * 8]byte
	if err := as.ReadMem(base, buf[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: %w", sp, err)
	}
	setGRegs(caller, buf[:], as.ByteOrder(), func(i int) unwind.SaveLoc {
		return unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + uint64(i)*8}
	})
	if as.ReadMem(sp+scFPRegsOff, buf[:]) == nil {
		for i := 0; i < 32; i++ {
			caller.Set(F0+i, as.ByteOrder().Uint64(buf[i*8:]), unwind.SaveLoc{Kind: unwind.LocMem, Addr: sp + scFPRegsOff + uint64(i)*8})
		}
	}
	callee.Signal = true
	caller.CFA, caller.HasCFA = sp, true
	caller.ExactPC = true
	caller.Trust = unwind.TrustContext
	return nil
}

// SiginfoAddr is the siginfo the kernel saved in signal frame f
// (unwind.SiginfoArch): struct rt_sigframe begins with it, at sp.
func (Arch) SiginfoAddr(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (uint64, bool) {
	return f.Get(SP)
}

// StepSignalHandler reads the signal frame at a signal handler's CFA,
// its entry sp (unwind.SignalFrameArch): the trampoline's sp.
func (Arch) StepSignalHandler(as unwind.AddrSpace, cfa uint64, caller *unwind.Frame) error {
	return stepSigreturn(as, unwind.TrampolineFrame(NumRegs, SP, cfa), caller)
}

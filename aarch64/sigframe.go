package aarch64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// The rt_sigreturn trampoline: "mov x8, #139 (__NR_rt_sigreturn); svc
// #0". The kernel's vDSO has it as __kernel_rt_sigreturn; glibc has no
// trampoline of its own on aarch64, and qemu-user maps a page holding the
// same two instructions. A handler returns to it.
const (
	insnMovX8Sigreturn = 0xd2801168
	insnSvc0           = 0xd4000001
)

// isSigreturn reports whether pc is the trampoline's first instruction,
// or its svc (a thread interrupted in the system call itself).
func isSigreturn(as unwind.AddrSpace, pc uint64) bool {
	for _, start := range []uint64{pc, pc - 4} {
		a, ok1 := readInsn(as, start)
		b, ok2 := readInsn(as, start+4)
		if ok1 && ok2 && a == insnMovX8Sigreturn && b == insnSvc0 {
			return true
		}
	}
	return false
}

// When the handler returns into the trampoline, sp points at the
// kernel's struct rt_sigframe (arch/arm64/kernel/signal.c): siginfo (128
// bytes), then struct ucontext: uc_flags, uc_link, uc_stack (24 bytes),
// uc_sigmask with the padding to a 1024-bit sigset (128 bytes), then
// uc_mcontext, aligned to 16, at offset 176. struct sigcontext
// (asm/sigcontext.h) is fault_address, regs[31], sp, pc, pstate.
const (
	sigcontextOff = 128 + 176
	scRegsOff     = sigcontextOff + 8 // x0; then x1..x30, sp, pc
	scWords       = 31 + 2
)

// stepSigreturn recovers the interrupted frame from the signal context
// the kernel saved: every general register, sp and the exact pc.
func stepSigreturn(as unwind.AddrSpace, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: sp", unwind.ErrNoReg)
	}
	base := sp + scRegsOff
	var buf [scWords * 8]byte
	if err := as.ReadMem(base, buf[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: %w", sp, err)
	}
	order := as.ByteOrder()
	for r := 0; r < scWords; r++ { // x0–x30, sp (31), pc (32): the DWARF order
		caller.Set(r, order.Uint64(buf[r*8:]), unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + uint64(r)*8})
	}
	carryPACMask(callee, caller)
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

// faultAddrOff is struct sigcontext's fault_address in the rt_sigframe.
const faultAddrOff = sigcontextOff

// sigSEGV is Linux's signal number of SIGSEGV.
const sigSEGV = 11

// SavedTrap is the fault address signal frame f's sigcontext records
// (unwind.TrapContextArch). The kernel writes fault_address for every
// signal (the last fault's, or 0), so it proves a fault only together
// with the interrupted instruction: AddrOnly.
func (Arch) SavedTrap(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (unwind.SavedTrap, bool) {
	sp, ok := f.Get(SP)
	if !ok {
		return unwind.SavedTrap{}, false
	}
	var b [8]byte
	if as.ReadMem(sp+faultAddrOff, b[:]) != nil {
		return unwind.SavedTrap{}, false
	}
	return unwind.SavedTrap{Signal: sigSEGV, Addr: as.ByteOrder().Uint64(b[:]), AddrOnly: true}, true
}

// StepSignalHandler reads the signal frame at a signal handler's CFA,
// its entry sp (unwind.SignalFrameArch): the trampoline's sp.
func (Arch) StepSignalHandler(as unwind.AddrSpace, cfa uint64, caller *unwind.Frame) error {
	return stepSigreturn(as, unwind.TrampolineFrame(NumRegs, SP, cfa), caller)
}

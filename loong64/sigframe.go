package loong64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// The rt_sigreturn trampoline: "li.w a7, 139 (__NR_rt_sigreturn);
// syscall 0". The kernel's vDSO and qemu-user assemble li.w as "ori a7,
// zero, 139"; "addi.w" is accepted too.
const (
	insnOriA7Sigreturn  = 0x03822c0b
	insnAddiA7Sigreturn = 0x02822c0b
	insnSyscall0        = 0x002b0000
)

// isSigreturn reports whether pc is the trampoline's first instruction,
// or its syscall (a thread interrupted in the system call itself).
func isSigreturn(as unwind.AddrSpace, pc uint64) bool {
	for _, start := range []uint64{pc, pc - 4} {
		a, ok1 := readInsn(as, start)
		b, ok2 := readInsn(as, start+4)
		if ok1 && ok2 && (a == insnOriA7Sigreturn || a == insnAddiA7Sigreturn) && b == insnSyscall0 {
			return true
		}
	}
	return false
}

// When the handler returns into the trampoline, sp points at the
// kernel's struct rt_sigframe (arch/loongarch/kernel/signal.c): siginfo
// (128 bytes), then struct ucontext: uc_flags, uc_link, uc_stack (24
// bytes), uc_sigmask padded to 1024 bits (128 bytes), then uc_mcontext,
// a struct sigcontext aligned to 16 (its extended context is), at 176:
// sc_pc, then sc_regs[32].
const (
	scPCOff   = 128 + 176
	scRegsOff = scPCOff + 8
)

// stepSigreturn recovers the interrupted frame from the signal context
// the kernel saved: every general register, sp and the exact pc.
func stepSigreturn(as unwind.AddrSpace, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: sp", unwind.ErrNoReg)
	}
	var buf [33 * 8]byte
	if err := as.ReadMem(sp+scPCOff, buf[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: %w", sp, err)
	}
	setGRegs(caller, buf[8:], as.ByteOrder(), func(i int) unwind.SaveLoc {
		return unwind.SaveLoc{Kind: unwind.LocMem, Addr: sp + scRegsOff + uint64(i)*8}
	})
	caller.Set(PC, as.ByteOrder().Uint64(buf[:]), unwind.SaveLoc{Kind: unwind.LocMem, Addr: sp + scPCOff})
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

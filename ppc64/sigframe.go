package ppc64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// The rt_sigreturn trampoline: "li r0,172 (__NR_rt_sigreturn); sc". The
// kernel's vDSO has it as __kernel_sigtramp_rt64, preceded by "addi
// r1,r1,128" (popping the __SIGNAL_FRAMESIZE the kernel reserved below
// the frame), and a handler returns to that addi. qemu-user's trampoline
// page holds the two instructions alone, and a handler returns to the li.
const (
	insnLiR0Sigreturn = 0x380000ac // addi r0,0,172
	insnSc            = 0x44000002
	insnAddiR1Frame   = 0x38210080 // addi r1,r1,128
	signalFrameSize   = 128        // __SIGNAL_FRAMESIZE
)

// sigreturnAt returns the address of the trampoline's li when pc is at
// its addi, its li or its sc.
func sigreturnAt(as unwind.AddrSpace, pc uint64) (uint64, bool) {
	for _, li := range []uint64{pc + 4, pc, pc - 4} {
		a, ok1 := readInsn(as, li)
		b, ok2 := readInsn(as, li+4)
		if !ok1 || !ok2 || a != insnLiR0Sigreturn || b != insnSc {
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

// isSigreturn reports whether pc is in the trampoline.
func isSigreturn(as unwind.AddrSpace, pc uint64) bool {
	_, ok := sigreturnAt(as, pc)
	return ok
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
func stepSigreturn(as unwind.AddrSpace, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: sp", unwind.ErrNoReg)
	}
	pc, _ := callee.Get(PC)
	li, _ := sigreturnAt(as, pc)
	candidates := []uint64{sp + signalFrameSize, sp + qemuFrameSize, sp}
	if pc >= li {
		if prev, ok := readInsn(as, li-4); ok && prev == insnAddiR1Frame {
			candidates = []uint64{sp, sp + signalFrameSize} // the addi has run
		}
	}
	for _, uc := range candidates {
		if regs, err := readWord(as, uc+scRegsPtr); err != nil || regs != uc+scGPRegs {
			continue
		}
		base := uc + scGPRegs
		var buf [gregsSize]byte
		if err := as.ReadMem(base, buf[:]); err != nil {
			return fmt.Errorf("signal context at %#x: %w", base, err)
		}
		setGRegs(caller, buf[:], as.ByteOrder().Uint64, func(slot int) unwind.SaveLoc {
			return unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + uint64(slot)*8}
		})
		callee.Signal = true
		caller.CFA, caller.HasCFA = sp, true
		caller.ExactPC = true
		caller.Trust = unwind.TrustContext
		return nil
	}
	return fmt.Errorf("signal frame at sp %#x: no ucontext whose regs pointer points at its gp_regs: %w", sp, unwind.ErrBadFrame)
}

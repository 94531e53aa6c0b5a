package x86_64

import (
	"bytes"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// sigreturnCode is glibc's and musl's __restore_rt: mov $15,%rax
// (__NR_rt_sigreturn); syscall. The kernel makes a signal handler return
// to it; its frame is the kernel's rt_sigframe.
var sigreturnCode = []byte{0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05}

func isSigreturn(as unwind.AddrSpace, pc uint64) bool {
	var b [9]byte
	if as.ReadMem(pc, b[:]) != nil {
		return false
	}
	return bytes.Equal(b[:], sigreturnCode)
}

// When the handler returns into the trampoline, rsp points at the
// rt_sigframe's struct ucontext (the return address was popped):
// uc_flags, uc_link, uc_stack (24 bytes), then uc_mcontext, whose gregs
// are r8..r15 rdi rsi rbp rbx rdx rax rcx rsp rip (asm/sigcontext.h).
const mcontextOff = 40

var sigcontextRegs = [...]int{R8, R9, R10, R11, R12, R13, R14, R15, RDI, RSI, RBP, RBX, RDX, RAX, RCX, RSP, RIP}

// stepSigreturn recovers the interrupted frame from the ucontext the
// kernel saved, for trampolines without CFI.
func stepSigreturn(as unwind.AddrSpace, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(RSP)
	if !ok {
		return fmt.Errorf("signal frame: %w: rsp", unwind.ErrNoReg)
	}
	base := sp + mcontextOff
	var buf [len(sigcontextRegs) * 8]byte
	if err := as.ReadMem(base, buf[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: %w", base, err)
	}
	for i, reg := range sigcontextRegs {
		caller.Set(reg, as.ByteOrder().Uint64(buf[i*8:]), unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + uint64(i)*8})
	}
	// The CFA of the trampoline's frame is the interrupted rsp, what
	// glibc's CFI for __restore_rt computes (DW_OP_breg7 160, deref).
	caller.CFA, caller.HasCFA = caller.Regs[RSP], true
	callee.Signal = true
	caller.ExactPC = true
	caller.Trust = unwind.TrustContext
	return nil
}

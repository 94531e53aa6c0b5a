package x86_64

import (
	"bytes"
	"fmt"

	"github.com/coreunwind/coreunwind/internal/x86frame"
	"github.com/coreunwind/coreunwind/unwind"
)

// sigreturnCode is glibc's and musl's __restore_rt: mov $15,%rax
// (__NR_rt_sigreturn); syscall. The kernel makes a signal handler return
// to it; its frame is the kernel's rt_sigframe. x32's glibc has the same
// sequence with x32's system call number, __X32_SYSCALL_BIT | 513.
var (
	sigreturnCode    = []byte{0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05}
	sigreturnCodeX32 = []byte{0x48, 0xc7, 0xc0, 0x01, 0x02, 0x00, 0x40, 0x0f, 0x05}
)

// isSigreturn reports whether pc is either ABI's trampoline: a process
// runs only one of them, and the bytes of one never occur in the other.
func isSigreturn(as unwind.AddrSpace, pc uint64) bool {
	var b [9]byte
	if as.ReadMem(pc, b[:]) != nil {
		return false
	}
	return bytes.Equal(b[:], sigreturnCode) || bytes.Equal(b[:], sigreturnCodeX32)
}

// When the handler returns into the trampoline, rsp points at the
// rt_sigframe's struct ucontext (the return address was popped):
// uc_flags, uc_link, uc_stack (24 bytes), then uc_mcontext, whose gregs
// are r8..r15 rdi rsi rbp rbx rdx rax rcx rsp rip (asm/sigcontext.h).
// x32's struct ucontext_x32 has 4-byte uc_flags and uc_link and a 12-byte
// compat_stack_t, padded to 8: its uc_mcontext (the same 64-bit struct
// sigcontext) is at 24, as x32 glibc's CFI for __restore_rt says
// (r8 at DW_OP_breg7 24).
//
// struct rt_sigframe's siginfo follows the ucontext: past uc_mcontext
// (the 256-byte struct sigcontext) and the 8-byte uc_sigmask. x32's is a
// compat_siginfo, whose 32-bit layout the address space's pointer size
// selects where it is read.
type sigframeLayout struct {
	mcontext, siginfo uint64
}

var (
	lp64Sigframe = sigframeLayout{mcontext: 40, siginfo: 40 + 256 + 8}
	x32Sigframe  = sigframeLayout{mcontext: 24, siginfo: 24 + 256 + 8}
)

func (a Arch) sigframe() sigframeLayout {
	if a.x32 {
		return x32Sigframe
	}
	return lp64Sigframe
}

var sigcontextRegs = [...]int{R8, R9, R10, R11, R12, R13, R14, R15, RDI, RSI, RBP, RBX, RDX, RAX, RCX, RSP, RIP}

// stepSigreturn recovers the interrupted frame from the ucontext the
// kernel saved, for trampolines without CFI.
func stepSigreturn(as unwind.AddrSpace, layout sigframeLayout, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(RSP)
	if !ok {
		return fmt.Errorf("signal frame: %w: rsp", unwind.ErrNoReg)
	}
	base := sp + layout.mcontext
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

// SiginfoAddr is the siginfo the kernel saved in signal frame f
// (unwind.SiginfoArch).
func (a Arch) SiginfoAddr(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (uint64, bool) {
	sp, ok := f.Get(RSP)
	return sp + a.sigframe().siginfo, ok
}

// Where the sigcontext (at sigframeLayout.mcontext in the ucontext) keeps the
// exception: err, trapno, then oldmask and cr2, past the 17 registers and
// eflags and csgsfs.
const (
	scErr    = 19 * 8
	scTrapno = 20 * 8
	scCR2    = 22 * 8
)

// SavedTrap is the fault signal frame f's sigcontext records
// (unwind.TrapContextArch).
func (a Arch) SavedTrap(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (unwind.SavedTrap, bool) {
	sp, ok := f.Get(RSP)
	if !ok {
		return unwind.SavedTrap{}, false
	}
	var sc [scCR2 + 8]byte
	if as.ReadMem(sp+a.sigframe().mcontext, sc[:]) != nil {
		return unwind.SavedTrap{}, false
	}
	o := as.ByteOrder()
	ip := o.Uint64(sc[16*8:]) // rip, the 17th register
	return x86frame.TrapSignal(o.Uint64(sc[scTrapno:]), o.Uint64(sc[scErr:]), o.Uint64(sc[scCR2:]), ip)
}

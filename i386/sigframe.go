package i386

import (
	"bytes"
	"fmt"

	"github.com/coreunwind/coreunwind/internal/x86frame"
	"github.com/coreunwind/coreunwind/unwind"
)

// trampoline says which signal frame a sigreturn trampoline returns
// through, and where its PC is in it.
type trampoline uint8

const (
	notTrampoline trampoline = iota
	// sigreturnStart: at the first instruction of the old-style
	// trampoline; sp points at the signal number of struct sigframe.
	sigreturnStart
	// sigreturnPopped: after its "pop %eax"; sp points at the sigcontext.
	sigreturnPopped
	// rtSigreturn: the rt trampoline; sp points at the signal number of
	// struct rt_sigframe.
	rtSigreturn
)

// The trampolines' code, the same in the vDSO (__kernel_sigreturn,
// __kernel_rt_sigreturn) and in glibc (__restore, __restore_rt):
// pop %eax; mov $__NR_sigreturn (0x77),%eax; int $0x80 and
// mov $__NR_rt_sigreturn (0xad),%eax; int $0x80. The kernel makes a
// handler return to one of them.
var (
	sigreturnCode   = []byte{0x58, 0xb8, 0x77, 0x00, 0x00, 0x00, 0xcd, 0x80}
	rtSigreturnCode = []byte{0xb8, 0xad, 0x00, 0x00, 0x00, 0xcd, 0x80}
)

// trampolineAt recognizes a sigreturn trampoline by the code at pc.
func trampolineAt(as unwind.AddrSpace, pc uint64) trampoline {
	var b [8]byte
	if as.ReadMem(pc, b[:7]) != nil {
		return notTrampoline
	}
	if bytes.Equal(b[:7], rtSigreturnCode) {
		return rtSigreturn
	}
	if b[0] == sigreturnCode[0] && as.ReadMem(pc, b[:]) == nil && bytes.Equal(b[:], sigreturnCode) {
		return sigreturnStart
	}
	if bytes.Equal(b[:7], sigreturnCode[1:]) && pc > 0 && as.ReadMem(pc-1, b[:1]) == nil && b[0] == sigreturnCode[0] {
		return sigreturnPopped
	}
	return notTrampoline
}

// Where the interrupted registers are, relative to sp at the trampoline.
// The handler's "ret" popped the frame's return address (pretcode), so sp
// points at the signal number. struct sigframe_ia32: sig, then struct
// sigcontext_32. struct rt_sigframe_ia32: sig, pinfo, puc, a 128-byte
// siginfo, then struct ucontext_ia32 whose uc_mcontext (a sigcontext_32)
// follows uc_flags, uc_link and the 12-byte uc_stack.
const (
	sigframeContext   = 4
	rtSigframeContext = 4 + 4 + 4 + 128 + 20
)

// sigcontextRegs are the general registers of struct sigcontext_32
// (asm/sigcontext.h: gs fs es ds, then di si bp sp bx dx cx ax, trapno
// err, ip) from its offset 16 on.
var sigcontextRegs = [...]int{EDI, ESI, EBP, ESP, EBX, EDX, ECX, EAX, -1, -1, EIP}

const sigcontextGRegs = 16

// stepSigreturn recovers the interrupted frame from the sigcontext the
// kernel saved, for trampolines without CFI.
func stepSigreturn(as unwind.AddrSpace, t trampoline, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(ESP)
	if !ok {
		return fmt.Errorf("signal frame: %w: esp", unwind.ErrNoReg)
	}
	base := sp + sigcontextGRegs
	switch t {
	case sigreturnStart:
		base += sigframeContext
	case rtSigreturn:
		base += rtSigframeContext
	}
	var buf [len(sigcontextRegs) * 4]byte
	if err := as.ReadMem(base, buf[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: %w", base, err)
	}
	for i, reg := range sigcontextRegs {
		if reg >= 0 {
			caller.Set(reg, uint64(as.ByteOrder().Uint32(buf[i*4:])), unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + uint64(i)*4})
		}
	}
	// The CFA of the trampoline's frame is the interrupted esp, what the
	// vDSO's CFI for __kernel_sigreturn computes.
	caller.CFA, caller.HasCFA = caller.Regs[ESP], true
	callee.Signal = true
	caller.ExactPC = true
	caller.Trust = unwind.TrustContext
	return nil
}

// rtSigframeInfo is where struct rt_sigframe_ia32's siginfo is, past
// sig, pinfo and puc, relative to sp in the rt trampoline. The old-style
// frame has none.
const rtSigframeInfo = 4 + 4 + 4

// SiginfoAddr is the siginfo the kernel saved in signal frame f
// (unwind.SiginfoArch): only an rt frame holds one, and its trampoline's
// code says which frame it is (the vDSO's CFI marks both alike).
func (Arch) SiginfoAddr(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (uint64, bool) {
	sp, ok := f.Get(ESP)
	pc, okPC := f.Get(EIP)
	if !ok || !okPC || trampolineAt(as, pc) != rtSigreturn {
		return 0, false
	}
	return sp + rtSigframeInfo, true
}

// Where struct sigcontext_32 keeps the exception: trapno, err, ip after
// the four segment and eight general registers, cr2 last.
const (
	scTrapno = 12 * 4
	scErr    = 13 * 4
	scIP     = 14 * 4
	scCR2    = 21 * 4
)

// SavedTrap is the fault signal frame f's sigcontext records
// (unwind.TrapContextArch).
func (Arch) SavedTrap(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (unwind.SavedTrap, bool) {
	sp, ok := f.Get(ESP)
	pc, okPC := f.Get(EIP)
	if !ok || !okPC {
		return unwind.SavedTrap{}, false
	}
	sc := sp
	switch trampolineAt(as, pc) {
	case sigreturnStart:
		sc += sigframeContext
	case rtSigreturn:
		sc += rtSigframeContext
	case notTrampoline:
		return unwind.SavedTrap{}, false
	}
	var b [scCR2 + 4]byte
	if as.ReadMem(sc, b[:]) != nil {
		return unwind.SavedTrap{}, false
	}
	o := as.ByteOrder()
	u := func(off int) uint64 { return uint64(o.Uint32(b[off:])) }
	return x86frame.TrapSignal(u(scTrapno), u(scErr), u(scCR2), u(scIP))
}

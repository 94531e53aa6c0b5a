package mips

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// The sigreturn trampolines: "li v0, __NR_rt_sigreturn; syscall" (o32
// 4193, n64 5211) and o32's old "li v0, __NR_sigreturn (4119); syscall".
// The kernel's vDSO has them, and qemu-user writes them into the signal
// frame itself; a handler returns to one.
const (
	insnLiRTSigreturnO32 = 0x24021061
	insnLiSigreturnO32   = 0x24021017
	insnLiRTSigreturnN64 = 0x2402145b
	insnSyscall          = 0x0000000c
)

// Trampoline kinds: the rt frame (struct rt_sigframe: siginfo and
// ucontext) and o32's old one (struct sigframe: the sigcontext alone).
const (
	kindRTSigreturn = cfirow.KindTrampoline + iota
	kindSigreturn
)

// trampolineKind recognizes a trampoline at pc, or at pc-4 (a thread
// stopped in the system call itself).
func (a Arch) trampolineKind(as unwind.AddrSpace, pc uint64) cfirow.Kind {
	for _, start := range []uint64{pc, pc - 4} {
		li, ok1 := a.readInsn(as, start)
		sc, ok2 := a.readInsn(as, start+4)
		if !ok1 || !ok2 || sc != insnSyscall {
			continue
		}
		switch {
		case a.wide && li == insnLiRTSigreturnN64, !a.wide && li == insnLiRTSigreturnO32:
			return kindRTSigreturn
		case !a.wide && li == insnLiSigreturnO32:
			return kindSigreturn
		}
	}
	return cfirow.KindNone
}

// Where the trampoline's sp finds the interrupted registers. Both frames
// begin with four argument slots and two words (the trampoline, in
// qemu's), 24 bytes; the rt frame's siginfo (128 bytes) follows, then
// its struct ucontext: o32's uc_flags, uc_link and 12-byte uc_stack put
// uc_mcontext at 24 (8-aligned), n64's 8-byte words and 24-byte uc_stack
// at 40. The o32 struct sigcontext is sc_regmask, sc_status, sc_pc, then
// sc_regs[32], every register in a 64-bit slot; n64's is sc_regs[32],
// sc_fpregs[32], the four hi and four lo accumulators, then sc_pc
// (arch/mips/include/uapi/asm/sigcontext.h).
const (
	frameHead  = 24
	rtUContext = frameHead + 128
)

type sigcontextLayout struct{ regs, pc uint64 }

func (a Arch) sigcontext(k cfirow.Kind) sigcontextLayout {
	switch {
	case a.wide:
		mc := uint64(rtUContext + 40)
		return sigcontextLayout{regs: mc, pc: mc + 64*8 + 8*8}
	case k == kindSigreturn:
		return sigcontextLayout{regs: frameHead + 16, pc: frameHead + 8}
	}
	mc := uint64(rtUContext + 24)
	return sigcontextLayout{regs: mc + 16, pc: mc + 8}
}

// stepSigreturn recovers the interrupted frame from the signal context:
// every general register and the exact pc.
func (a Arch) stepSigreturn(as unwind.AddrSpace, k cfirow.Kind, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: sp", unwind.ErrNoReg)
	}
	l := a.sigcontext(k)
	var b [32 * 8]byte
	if err := as.ReadMem(sp+l.regs, b[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: %w", sp, err)
	}
	o := as.ByteOrder()
	for r := 0; r < 32; r++ {
		caller.Set(r, a.narrow(o.Uint64(b[r*8:])), unwind.SaveLoc{Kind: unwind.LocMem, Addr: sp + l.regs + uint64(r)*8})
	}
	caller.Set(Zero, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	var pc [8]byte
	if err := as.ReadMem(sp+l.pc, pc[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: %w", sp, err)
	}
	caller.Set(PC, a.narrow(o.Uint64(pc[:])), unwind.SaveLoc{Kind: unwind.LocMem, Addr: sp + l.pc})
	callee.Signal = true
	caller.CFA, caller.HasCFA = sp, true
	caller.ExactPC = true
	caller.Trust = unwind.TrustContext
	return nil
}

// SiginfoAddr is the siginfo the kernel saved in signal frame f
// (unwind.SiginfoArch): after the rt frame's head. o32's old frame has
// none.
func (a Arch) SiginfoAddr(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (uint64, bool) {
	sp, ok := f.Get(SP)
	pc, _ := f.Get(PC)
	if !ok || a.trampolineKind(as, pc) != kindRTSigreturn {
		return 0, false
	}
	return sp + frameHead, true
}

package sparc64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// glibc's __rt_sigreturn_stub: "mov 101 (__NR_rt_sigreturn), %g1; ta
// 0x6d" (the 64-bit system call trap). glibc makes the handler return to
// it (its sa_restorer is the stub less 8, as a call's %o7 would be).
const (
	insnMovSigreturn = 0x82102065
	insnTrap64       = 0x91d0206d
)

// isSigreturn reports whether pc is the stub's first instruction, or its
// trap (a thread stopped in the system call itself).
func isSigreturn(as unwind.AddrSpace, pc uint64) bool {
	for _, start := range []uint64{pc, pc - 4} {
		a, ok1 := readInsn(as, start)
		b, ok2 := readInsn(as, start+4)
		if ok1 && ok2 && a == insnMovSigreturn && b == insnTrap64 {
			return true
		}
	}
	return false
}

// The kernel's struct rt_signal_frame (arch/sparc/kernel/signal_64.c) is
// at the stub frame's %sp + stack bias: a struct sparc_stackf (the
// handler's window save area and argument slots, 192 bytes), the
// siginfo (128 bytes), then struct pt_regs: u_regs[16] (%g0–%g7 and the
// interrupted %o0–%o7), %tstate, %tpc, %tnpc.
const (
	sfSiginfo = 192
	sfRegs    = sfSiginfo + 128
	ptTPC     = 17 // pt_regs word: u_regs[16], tstate, then tpc
)

// stepSigreturn recovers the interrupted frame from the pt_regs the
// kernel saved: its globals and outs, the exact pc, and its %l and %i
// registers from its own window's save area at its %sp.
func stepSigreturn(as unwind.AddrSpace, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: sp", unwind.ErrNoReg)
	}
	base := sp + stackBias + sfRegs
	var b [(ptTPC + 1) * 8]byte
	if err := as.ReadMem(base, b[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: %w", sp+stackBias, err)
	}
	o := as.ByteOrder()
	for r := 0; r < 16; r++ {
		caller.Set(r, o.Uint64(b[r*8:]), unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + uint64(r)*8})
	}
	caller.Set(G0, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.Set(PC, o.Uint64(b[ptTPC*8:]), unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + ptTPC*8})
	isp, _ := caller.Get(SP)
	// A lost window leaves the caller's %l and %i unknown, not the step
	// failed: the pc and %sp are the context's.
	_ = restoreWindow(as, isp+stackBias, caller)
	callee.Signal = true
	caller.CFA, caller.HasCFA = isp+stackBias, true
	caller.ExactPC = true
	caller.Trust = unwind.TrustContext
	return nil
}

// SiginfoAddr is the siginfo the kernel saved in signal frame f
// (unwind.SiginfoArch).
func (Arch) SiginfoAddr(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (uint64, bool) {
	sp, ok := f.Get(SP)
	return sp + stackBias + sfSiginfo, ok
}

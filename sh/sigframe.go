package sh

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// The sigreturn trampolines load the system call number with "mov.w
// @(disp,pc),r3" from a word after the code and trap: the kernel's vDSO
// (and the code it writes into a frame) has "mov.w 1f,r3; trapa #0x10;
// or r0,r0" five times, then the word (libunwind's sh port checks that
// form); qemu-user 7.2's page has the word right after the trapa.
// Either way the word the mov.w reads is __NR_sigreturn (119) or
// __NR_rt_sigreturn (173).
const (
	insnMovWR3Mask = 0xff00 // mov.w @(disp,pc),r3: 0x93dd
	insnMovWR3     = 0x9300
	insnTrapaMask  = 0xfff8 // trapa #0x10..#0x17
	insnTrapa      = 0xc310
	nrSigreturn    = 119
	nrRTSigreturn  = 173
)

// Trampoline kinds: the old frame (struct sigframe: the sigcontext at
// sp) and the rt frame (struct rt_sigframe: siginfo, then ucontext).
const (
	kindSigreturn = cfirow.KindTrampoline + iota
	kindRTSigreturn
)

// trampolineKind recognizes a trampoline at pc, or at pc-4 (a thread
// stopped in the system call itself: past the mov.w and the trapa).
func trampolineKind(as unwind.AddrSpace, pc uint64) cfirow.Kind {
	for _, start := range []uint64{pc, pc - 4} {
		mov, ok1 := readHalf(as, start)
		trap, ok2 := readHalf(as, start+2)
		if !ok1 || !ok2 || mov&insnMovWR3Mask != insnMovWR3 || trap&insnTrapaMask != insnTrapa {
			continue
		}
		nr, ok := readHalf(as, start+4+2*uint64(mov&0xff))
		switch {
		case ok && nr == nrSigreturn:
			return kindSigreturn
		case ok && nr == nrRTSigreturn:
			return kindRTSigreturn
		}
	}
	return cfirow.KindNone
}

// Where the trampoline's sp finds the interrupted registers
// (arch/sh/kernel/signal_32.c; gdb's and libunwind's sh ports read the
// same): struct sigcontext is oldmask, then sc_gregs[16], sc_pc, sc_pr,
// sc_sr, sc_gbr, sc_mach, sc_macl. The old frame starts with it; the rt
// frame with siginfo (128 bytes), then struct ucontext: uc_flags,
// uc_link and the 12-byte uc_stack put uc_mcontext at 20. qemu-user
// 7.2's rt frame has uc_mcontext 8 bytes further (its ucontext starts
// at 136): the rt frame's context is the first of the two whose saved
// pc is code.
const (
	sigcontextRegs = 4
	rtMContext     = 128 + 20
	rtMContextQemu = 128 + 28
)

// sigcontextRegsAt is where the general registers of the signal context
// are saved, for a trampoline of kind k whose sp is sp.
func sigcontextRegsAt(as unwind.AddrSpace, k cfirow.Kind, sp uint64) uint64 {
	if k != kindRTSigreturn {
		return sp + sigcontextRegs
	}
	for _, mc := range []uint64{rtMContext, rtMContextQemu} {
		regs := sp + mc + sigcontextRegs
		if pc, err := readWord(as, regs+pcSlot*4); err == nil && stackscan.IsCode(as, pc) {
			return regs
		}
	}
	return sp + rtMContext + sigcontextRegs
}

// stepSigreturn recovers the interrupted frame from the signal context:
// r0–r15, the exact pc, pr, gbr, mach and macl.
func stepSigreturn(as unwind.AddrSpace, k cfirow.Kind, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: sp", unwind.ErrNoReg)
	}
	regs := sigcontextRegsAt(as, k, sp)
	var b [22 * 4]byte
	if err := as.ReadMem(regs, b[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: %w", sp, err)
	}
	o := as.ByteOrder()
	setRegs(caller, func(i int) uint64 { return uint64(o.Uint32(b[i*4:])) }, func(i int) unwind.SaveLoc {
		return unwind.SaveLoc{Kind: unwind.LocMem, Addr: regs + uint64(i)*4}
	})
	callee.Signal = true
	caller.CFA, caller.HasCFA = sp, true
	caller.ExactPC = true
	caller.Trust = unwind.TrustContext
	return nil
}

// SiginfoAddr is the siginfo the kernel saved in signal frame f
// (unwind.SiginfoArch): the rt frame begins with it, at sp. The old
// frame has none.
func (Arch) SiginfoAddr(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (uint64, bool) {
	sp, ok := f.Get(SP)
	pc, _ := f.Get(PC)
	if !ok || trampolineKind(as, pc) != kindRTSigreturn {
		return 0, false
	}
	return sp, true
}

// readHalf reads the 16-bit instruction (or data) halfword at addr in
// the target's byte order.
func readHalf(as unwind.AddrSpace, addr uint64) (uint16, bool) {
	var b [2]byte
	if addr%2 != 0 || as.ReadMem(addr, b[:]) != nil {
		return 0, false
	}
	return as.ByteOrder().Uint16(b[:]), true
}

package riscv64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// stepReturnAddressReg finds the caller of an interrupted frame without
// CFI (frame 0, or the frame a signal interrupted) in ra: a leaf, or a
// call through a null or wild pointer (the pc is not code), has not
// saved ra, and nothing else says where it returns. ra must follow a
// call, or lie in executable memory whose code the core does not hold
// (a library the core only maps: nothing contradicts ra there, and
// nothing else is left). It is not believed when it is stale: pointing back into the
// function the pc is in (the return address of a call the function made
// earlier), or equal to the return address the frame-pointer chain holds
// at fp-8 (then the chain, which also gives the caller's fp, is the
// better step).
func stepReturnAddressReg(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	ra, ok1 := callee.Get(RA)
	sp, ok2 := callee.Get(SP)
	if !ok1 || !ok2 || ra == 0 || !stackscan.IsCode(as, ra) {
		return false
	}
	if !afterCall(as, ra) && readable(as, ra-4) {
		return false
	}
	pc, _ := callee.Get(PC)
	if stackscan.IsCode(as, pc) {
		if stackscan.SameProc(as, pc, ra-2) {
			return false
		}
		if fp, ok := callee.Get(FP); ok && fp > sp && fp-sp <= stackscan.MaxFrameSize {
			if saved, err := readWord(as, fp-8); err == nil && saved == ra {
				return false
			}
		}
	}
	for r := 0; r < NumRegs; r++ {
		if v, ok := callee.Get(r); ok && r != PC {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocReg, Reg: RA})
	caller.CFA, caller.HasCFA = sp, true
	caller.Trust = unwind.TrustScan
	return true
}

// stepFramePointer follows the frame-pointer chain of code built with
// -fno-omit-frame-pointer: gcc's prologue "addi sp,sp,-n; sd ra,n-8(sp);
// sd s0,n-16(sp); addi s0,sp,n" leaves s0 pointing at the frame's top
// (the caller's sp), the return address at s0-8 and the caller's s0 at
// s0-16. It is used where there is no CFI, so everything is checked: s0
// aligned and above sp, the return address in code just after a call,
// the chain moving toward older frames (or ending at zero).
func stepFramePointer(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	fp, ok1 := callee.Get(FP)
	sp, ok2 := callee.Get(SP)
	if !ok1 || !ok2 || fp%8 != 0 || fp < sp+16 || fp-sp > stackscan.MaxFrameSize {
		return false
	}
	var b [16]byte
	if as.ReadMem(fp-16, b[:]) != nil {
		return false
	}
	order := as.ByteOrder()
	savedFP, ra := order.Uint64(b[0:]), order.Uint64(b[8:])
	if ra == 0 || !stackscan.IsCode(as, ra) || !afterCall(as, ra) {
		return false
	}
	if savedFP != 0 && (savedFP < fp || savedFP%8 != 0 || savedFP-fp > stackscan.MaxFrameSize) {
		return false
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp - 8})
	caller.Set(SP, fp, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.Set(FP, savedFP, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp - 16})
	keepCalleeSaved(callee, caller)
	caller.CFA, caller.HasCFA = fp, true
	caller.Trust = unwind.TrustFramePointer
	return true
}

// keepCalleeSaved assumes the caller's s1–s11 and fs0–fs11 are the
// callee's: where they were saved is not known without CFI.
func keepCalleeSaved(callee, caller *unwind.Frame) {
	for r := 0; r < NumRegs; r++ {
		if r == FP || r == SP || r == RA || !preserved(r) {
			continue
		}
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.Set(X0, 0, unwind.SaveLoc{Kind: unwind.LocValue})
}

// stepScan looks for the first word above the stack pointer that points
// into code just after a call. A caller frame whose own code is not in
// the address space is not scanned from: nothing says how big its frame
// is, so the first such word above it is as likely stale as not. gcc saves ra at the top of a frame with
// the caller's s0 just below it: when the callee's s0 points just above
// the slot, the caller's s0 is recovered too.
func stepScan(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok {
		return false
	}
	if pc, _ := callee.Get(PC); !callee.ExactPC && !readable(as, pc-2) {
		return false
	}
	slot, ra, found := stackscan.Find(as, sp, func(w uint64) (uint64, bool) {
		return w, w >= 0x1000 && stackscan.IsCode(as, w) && afterCall(as, w)
	})
	if !found {
		return false
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
	caller.Set(SP, slot+8, unwind.SaveLoc{Kind: unwind.LocValue})
	if fp, ok := callee.Get(FP); ok && fp == slot+8 {
		if v, err := readWord(as, slot-8); err == nil {
			caller.Set(FP, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot - 8})
		}
	} else if ok {
		caller.Set(FP, fp, callee.Locs[FP])
	}
	keepCalleeSaved(callee, caller)
	caller.CFA, caller.HasCFA = slot+8, true
	caller.Trust = unwind.TrustScan
	return true
}

// afterCall reports whether the instruction before ra is a call that
// links ra: "jal ra, off" or "jalr ra, off(rs)" (4 bytes: what call,
// tail-free calls through pointers and the PLT use), or the compressed
// "c.jalr rs" (2 bytes).
func afterCall(as unwind.AddrSpace, ra uint64) bool {
	if ra < 4 {
		return false
	}
	if insn, ok := readInsn(as, ra-4); ok {
		if insn&0xfff == 0x0ef || insn&0x7fff == 0x00e7 { // jal ra / jalr ra (rd = x1)
			return true
		}
	}
	var b [2]byte
	if ra%2 != 0 || as.ReadMem(ra-2, b[:]) != nil {
		return false
	}
	c := uint16(b[0]) | uint16(b[1])<<8
	return c&0xf07f == 0x9002 && c>>7&0x1f != 0 // c.jalr rs1 (rs1 != 0, rs2 = 0)
}

// readable reports whether the two bytes at addr can be read.
func readable(as unwind.AddrSpace, addr uint64) bool {
	var b [2]byte
	return as.ReadMem(addr, b[:]) == nil
}

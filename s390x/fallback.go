package s390x

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// Offsets in a frame's 160-byte register save area (s390x ELF ABI
// supplement, "Stack frame"; 96 bytes in 31-bit code): the back chain at
// 0, where a callee's "stmg %r6,%r15,48(%r15)" ("stm %r6,%r15,24(%r15)")
// stores r6–r15, so r14 at 112 (56), l.saveSlot(R14).

// stepLinkRegister finds the caller of an interrupted frame without CFI
// (frame 0, or the frame a signal interrupted) in r14: a leaf, or a call
// through a null or wild pointer (the pc is not code), has not saved it,
// and nothing else says where it returns. r14 must follow a call. It is
// not believed when it is stale: pointing back into the function the pc
// is in (the return address of a call the function made earlier).
func (l *layout) stepLinkRegister(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	ra, ok1 := callee.Get(R14)
	ra &= l.addrMask
	sp, ok2 := callee.Get(SP)
	if !ok1 || !ok2 || ra == 0 || !stackscan.IsCode(as, ra) || !afterCall(as, ra) {
		return false
	}
	pc, _ := callee.Get(PC)
	if stackscan.IsCode(as, pc) && stackscan.SameProc(as, pc, ra-2) {
		return false
	}
	for r := 0; r < NumRegs; r++ {
		if v, ok := callee.Get(r); ok && r != PC {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocReg, Reg: R14})
	caller.CFA, caller.HasCFA = sp+l.frameOffset, true
	caller.Trust = unwind.TrustScan
	return true
}

// stepBackChain follows the back chain that code built with -mbackchain
// keeps: a function's prologue saves r6–r15 in its caller's save area
// (r14 at 112), allocates its frame and stores the caller's r15 at
// 0(r15). So the word at the callee's sp is the caller's sp, and the
// callee's return address is at 112 above that. Without -mbackchain that
// word is whatever the frame holds, so everything is checked: aligned,
// above sp, within the stack size, the return address in code after a
// call.
func (l *layout) stepBackChain(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok || sp%8 != 0 {
		return false
	}
	chain, err := l.readWord(as, sp)
	if err != nil || chain <= sp || chain%8 != 0 || chain-sp > stackscan.MaxFrameSize {
		return false
	}
	ra, err := l.readWord(as, chain+l.saveSlot(R14))
	ra &= l.addrMask
	if err != nil || !stackscan.IsCode(as, ra) || !afterCall(as, ra) {
		return false
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: chain + l.saveSlot(R14)})
	caller.Set(SP, chain, unwind.SaveLoc{Kind: unwind.LocMem, Addr: sp})
	l.restoreSaveArea(as, callee, caller, chain)
	caller.CFA, caller.HasCFA = chain+l.frameOffset, true
	caller.Trust = unwind.TrustFramePointer
	return true
}

// restoreSaveArea recovers the caller's callee-saved registers without
// CFI. gcc's prologue saves a contiguous run of r6–r15 ending at r15
// ("stmg %rN,%r15,8*N(%r15)") into the save area at the caller's sp, so
// r6–r13 are read from there: right for the registers the callee saved
// (r11, the frame pointer of -O0 code, whose CFA later CFI rows use),
// older values for those it did not. f8–f15 and the access registers are
// assumed to be the callee's (where they were saved is not known).
func (l *layout) restoreSaveArea(as unwind.AddrSpace, callee, caller *unwind.Frame, csp uint64) {
	for r := 6; r <= 13; r++ {
		addr := csp + l.saveSlot(r)
		if v, err := l.readWord(as, addr); err == nil {
			caller.Set(r, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr})
		}
	}
	for r := F0 + 8; r < F0+16; r++ {
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	for r := A0; r < A0+16; r++ {
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
}

// stepScan looks for a word above the stack pointer that points into
// code just after a call instruction. The only place gcc's code saves r14
// is the r14 slot (112) of its caller's save area, so the word's slot
// gives the caller's sp too. Where a caller's own return address can lie
// bounds the scan from below: at 112 above its sp when it was interrupted
// (a prologue may have saved r14 before allocating its frame), else
// above its whole 160-byte save area, which belongs to its callees (a
// function that makes calls allocates a frame). So a frame the scan found
// is never found again.
func (l *layout) stepScan(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok {
		return false
	}
	start := sp + l.saveSlot(R14)
	if !callee.ExactPC {
		start += l.frameOffset
	}
	if start < sp {
		return false
	}
	slot, ra, found := stackscan.Find(as, start, func(w uint64) (uint64, bool) {
		w &= l.addrMask
		return w, w >= 0x1000 && stackscan.IsCode(as, w) && afterCall(as, w)
	})
	if !found {
		return false
	}
	csp := slot - l.saveSlot(R14)
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
	caller.Set(SP, csp, unwind.SaveLoc{Kind: unwind.LocValue})
	l.restoreSaveArea(as, callee, caller, csp)
	caller.CFA, caller.HasCFA = csp+l.frameOffset, true
	caller.Trust = unwind.TrustScan
	return true
}

// afterCall reports whether the instruction before ra is a call: a
// return address is where brasl (6 bytes: c0 r5), bras (4: a7 r5), bas
// (4: 4d) or basr (2: 0d) left it.
func afterCall(as unwind.AddrSpace, ra uint64) bool {
	if ra%2 != 0 || ra < 6 {
		return false
	}
	var b [6]byte
	if as.ReadMem(ra-6, b[:]) != nil {
		return false
	}
	switch {
	case b[0] == 0xc0 && b[1]&0x0f == 0x05: // brasl r1, rel32
		return true
	case b[2] == 0xa7 && b[3]&0x0f == 0x05: // bras r1, rel16
		return true
	case b[2] == 0x4d: // bas r1, d2(x2, b2)
		return true
	case b[4] == 0x0d: // basr r1, r2
		return true
	}
	return false
}

package arm

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// stepLinkRegister finds the caller of an interrupted frame without
// unwind info (frame 0, or a frame a signal interrupted) in lr: a leaf,
// or a call through a null or wild pointer, has not saved it. lr must
// follow a call and not point back into the function the pc is in (the
// stale return address of an earlier call).
func stepLinkRegister(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	lr, ok1 := callee.Get(LR)
	sp, ok2 := callee.Get(SP)
	if !ok1 || !ok2 || lr&^1 == 0 || !isReturnAddress(as, lr) {
		return false
	}
	pc, _ := callee.Get(PC)
	if stackscan.IsCode(as, pc) && stackscan.SameProc(as, pc, lr&^1-2) {
		return false
	}
	for r := 0; r < 16; r++ {
		if v, ok := callee.Get(r); ok && r != PC {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	setReturn(callee, caller, lr, unwind.SaveLoc{Kind: unwind.LocReg, Reg: LR})
	caller.CFA, caller.HasCFA = sp, true
	caller.Trust = unwind.TrustScan
	return true
}

// stepFramePointer follows gcc's ARM-state frame chain: "push {fp, lr};
// add fp, sp, #4" leaves fp (r11) pointing at the saved lr, with the
// caller's fp just below it. It is followed from ARM code only: in
// Thumb code r11 is an ordinary register (Thumb's frame pointer, r7,
// points below the locals: stepThumbFramePointer). APCS frames
// (-mapcs-frame, fp at the saved pc) are not recognized. Everything is
// checked: fp aligned and above sp, the return address after a call,
// the chain moving toward older frames.
func stepFramePointer(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	fp, ok1 := callee.Get(R11)
	sp, ok2 := callee.Get(SP)
	cpsr, _ := callee.Get(CPSR)
	if !ok1 || !ok2 || cpsr&cpsrThumb != 0 || fp < 4 || fp%4 != 0 || fp < sp || fp-sp > stackscan.MaxFrameSize {
		return false
	}
	ra, err1 := readWord(as, fp)
	savedFP, err2 := readWord(as, fp-4)
	if err1 != nil || err2 != nil || ra&^1 == 0 || !isReturnAddress(as, ra) {
		return false
	}
	if savedFP != 0 && (savedFP <= fp || savedFP-fp > stackscan.MaxFrameSize) {
		return false
	}
	setReturn(callee, caller, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp})
	caller.Set(SP, fp+4, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.Set(R11, savedFP, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp - 4})
	keepCalleeSaved(callee, caller)
	caller.CFA, caller.HasCFA = fp+4, true
	caller.Trust = unwind.TrustFramePointer
	return true
}

// maxThumbFrame bounds how far above r7 a Thumb frame's saved {r7, lr}
// pair is looked for: gcc's Thumb prologue "push {r7, lr}; sub sp, #n;
// add r7, sp, #0" leaves r7 n bytes below the pair.
const maxThumbFrame = 1024

// stepThumbFramePointer follows gcc's Thumb frame chain, where r7 points
// below the locals: the prologue pushed {..., r7, lr} above them, so the
// first word at or above r7 that is a Thumb return address (in code,
// after a call) is the saved lr, and the word below it the caller's r7.
// That r7 is kept only when it continues the chain (above the pair, or
// zero): code without a frame pointer uses r7 as an ordinary register.
func stepThumbFramePointer(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	fp, ok1 := callee.Get(R7)
	sp, ok2 := callee.Get(SP)
	cpsr, _ := callee.Get(CPSR)
	if !ok1 || !ok2 || cpsr&cpsrThumb == 0 || fp%4 != 0 || fp < sp || fp-sp > stackscan.MaxFrameSize {
		return false
	}
	var buf [maxThumbFrame + 8]byte
	n := uint64(maxThumbFrame)
	for n > 0 && as.ReadMem(fp, buf[:n+8]) != nil { // the stack may end sooner
		n /= 2
	}
	order := as.ByteOrder()
	for k := uint64(0); k < n; k += 4 {
		saved, ra := uint64(order.Uint32(buf[k:])), uint64(order.Uint32(buf[k+4:]))
		if ra&1 == 0 || !isReturnAddress(as, ra) {
			continue
		}
		pair := fp + k
		keepCalleeSaved(callee, caller)
		setReturn(callee, caller, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: pair + 4})
		caller.Set(SP, pair+8, unwind.SaveLoc{Kind: unwind.LocValue})
		if saved == 0 || saved > pair+4 && saved-pair <= stackscan.MaxFrameSize {
			caller.Set(R7, saved, unwind.SaveLoc{Kind: unwind.LocMem, Addr: pair})
		} else {
			caller.Valid[R7] = false // not a frame pointer: unknown in the caller
		}
		caller.CFA, caller.HasCFA = pair+8, true
		caller.Trust = unwind.TrustFramePointer
		return true
	}
	return false
}

// keepCalleeSaved assumes the caller's r4–r10 are the callee's (where
// they were saved is not known without unwind info).
func keepCalleeSaved(callee, caller *unwind.Frame) {
	for r := 4; r <= 10; r++ {
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
}

// stepScan takes the first word above sp that is a return address: in
// code, after a call instruction of the state its bit 0 says.
func stepScan(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok {
		return false
	}
	slot, ra, found := stackscan.Find(as, sp, func(w uint64) (uint64, bool) {
		return w, w >= 0x1000 && isReturnAddress(as, w)
	})
	if !found {
		return false
	}
	setReturn(callee, caller, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
	caller.Set(SP, slot+4, unwind.SaveLoc{Kind: unwind.LocValue})
	if fp, ok := callee.Get(R11); ok {
		caller.Set(R11, fp, callee.Locs[R11])
	}
	if fp, ok := callee.Get(R7); ok {
		caller.Set(R7, fp, callee.Locs[R7])
	}
	keepCalleeSaved(callee, caller)
	caller.CFA, caller.HasCFA = slot+4, true
	caller.Trust = unwind.TrustScan
	return true
}

// isReturnAddress reports whether ra (bit 0: Thumb) is in code just
// after a call: in ARM state bl/blx imm (cond 101 L=1, or 1111 101 H)
// or blx register; in Thumb state the 32-bit bl/blx (11110 then 11x1x /
// 11x0x) or the 16-bit blx register.
func isReturnAddress(as unwind.AddrSpace, ra uint64) bool {
	addr := ra &^ 1
	if !stackscan.IsCode(as, addr) || addr < 4 {
		return false
	}
	order := as.ByteOrder()
	var b [4]byte
	if ra&1 == 0 {
		if addr%4 != 0 || as.ReadMem(addr-4, b[:]) != nil {
			return false
		}
		insn := order.Uint32(b[:])
		return insn&0x0f000000 == 0x0b000000 || // bl (and blx imm, cond 1111)
			insn&0xfe000000 == 0xfa000000 ||
			insn&0x0ffffff0 == 0x012fff30 // blx rm
	}
	if as.ReadMem(addr-4, b[:]) != nil {
		return false
	}
	hw1, hw2 := thumbHalf(order, b[:]), thumbHalf(order, b[2:])
	if hw1&0xf800 == 0xf000 && hw2&0xc000 == 0xc000 { // bl / blx imm
		return true
	}
	return hw2&0xff87 == 0x4780 // blx rm
}

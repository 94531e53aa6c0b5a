package aarch64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// stepLinkRegister finds the caller of an interrupted frame without CFI
// (frame 0, or the frame a signal interrupted) in the link register:
// a leaf, or a call through a null or wild pointer (the pc is not code),
// has not saved x30, and nothing else says where it returns. x30 must
// follow a call. It is not believed when it is stale: pointing back into
// the function the pc is in (the return address of a call the function
// made earlier), or equal to what the frame record at x29 holds (then the
// record, which also gives the caller's x29, is the better step).
func stepLinkRegister(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	lr, ok1 := callee.Get(X30)
	sp, ok2 := callee.Get(SP)
	if !ok1 || !ok2 {
		return false
	}
	ra := stripPAC(callee, lr)
	if ra == 0 || !stackscan.IsCode(as, ra) || !afterCall(as, ra) {
		return false
	}
	pc, _ := callee.Get(PC)
	if stackscan.IsCode(as, pc) {
		if stackscan.SameProc(as, pc, ra-4) {
			return false
		}
		if fp, ok := callee.Get(X29); ok {
			if saved, err := readWord(as, fp+8); err == nil && stripPAC(callee, saved) == ra {
				return false
			}
		}
	}
	for r := 0; r < NumRegs; r++ {
		if v, ok := callee.Get(r); ok && r != PC {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocReg, Reg: X30})
	caller.CFA, caller.HasCFA = sp, true
	caller.Trust = unwind.TrustScan
	return true
}

// prologue is what the first instructions of a function without CFI say
// about its frame (gcc's shapes; anything else is prologueUnknown).
type prologue uint8

const (
	prologueUnknown prologue = iota
	// "stp x29, x30, [sp, #-n]!" (then "mov x29, sp"): the function
	// builds a frame record at the bottom of its n-byte frame.
	prologueFrameRecord
	// "str x30, [sp, #-n]!": the return address at the new sp, no frame
	// record (-fomit-frame-pointer); n is in frameSize.
	prologueSavedLR
)

// Instruction hints a prologue may start with: nop, paciasp, pacibsp,
// bti c / j / jc.
func isHint(insn uint32) bool { return insn&0xfffff01f == 0xd503201f }

// readPrologue decodes the prologue of the function containing pc (its
// start from the symbol table) and the size n of the frame it allocates.
func readPrologue(as unwind.AddrSpace, pc uint64) (prologue, uint64) {
	_, off, err := as.ProcName(pc)
	if err != nil || off > pc {
		return prologueUnknown, 0
	}
	start := pc - off
	for a := start; a < start+12 && a < pc; a += 4 {
		insn, ok := readInsn(as, a)
		switch {
		case !ok:
			return prologueUnknown, 0
		case isHint(insn):
			continue
		case insn&0xffc07fff == 0xa9807bfd && insn>>15&0x40 != 0: // stp x29, x30, [sp, #-n]!
			return prologueFrameRecord, uint64(-(int64(insn>>15&0x7f) << 57 >> 57) * 8)
		case insn&0xffe00fff == 0xf8000ffe && insn>>20&1 != 0: // str x30, [sp, #-n]!
			return prologueSavedLR, uint64(-(int64(insn>>12&0x1ff) << 55 >> 55))
		}
		return prologueUnknown, 0
	}
	return prologueUnknown, 0
}

// stepSavedLR unwinds a caller frame (not interrupted: it is past its
// prologue and made a call) of a function without CFI whose prologue is
// "str x30, [sp, #-n]!": its return address is at sp and its caller's sp
// is sp+n; it did not touch x29. The return address must follow a call.
func stepSavedLR(as unwind.AddrSpace, callee, caller *unwind.Frame, n uint64) bool {
	sp, ok := callee.Get(SP)
	if !ok || n == 0 || n%16 != 0 {
		return false
	}
	w, err := readWord(as, sp)
	if err != nil {
		return false
	}
	ra := stripPAC(callee, w)
	if !stackscan.IsCode(as, ra) || !afterCall(as, ra) {
		return false
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: sp})
	caller.Set(SP, sp+n, unwind.SaveLoc{Kind: unwind.LocValue})
	if fp, ok := callee.Get(X29); ok {
		caller.Set(X29, fp, callee.Locs[X29])
	}
	keepCalleeSaved(callee, caller)
	caller.CFA, caller.HasCFA = sp+n, true
	caller.Trust = unwind.TrustScan
	return true
}

// stepFrameRecord follows the frame-record chain: x29 points at {the
// caller's x29, the return address}, which a prologue stores with "stp
// x29, x30, [sp, #-n]!; mov x29, sp". It is used where there is no CFI,
// so everything is checked: x29 aligned and above sp, the return address
// in code, the chain moving toward older frames. The caller's sp is not
// recorded: it is x29+n when the callee's prologue says the record is at
// the bottom of its n-byte frame (n > 0), else just above the record, the
// closest lower bound.
func stepFrameRecord(as unwind.AddrSpace, callee, caller *unwind.Frame, n uint64) bool {
	fp, ok1 := callee.Get(X29)
	sp, ok2 := callee.Get(SP)
	if !ok1 || !ok2 || fp == 0 || fp%8 != 0 || fp < sp || fp-sp > stackscan.MaxFrameSize {
		return false
	}
	var b [16]byte
	if as.ReadMem(fp, b[:]) != nil {
		return false
	}
	order := as.ByteOrder()
	savedFP, ra := order.Uint64(b[0:]), stripPAC(callee, order.Uint64(b[8:]))
	if ra == 0 || !stackscan.IsCode(as, ra) {
		return false
	}
	chains := savedFP > fp && savedFP%8 == 0 && savedFP-fp <= stackscan.MaxFrameSize
	if !chains {
		savedFP = 0
	}
	if !chains && !afterCall(as, ra) {
		return false
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp + 8})
	cfa := fp + 16
	if n > 16 && n <= stackscan.MaxFrameSize {
		cfa = fp + n
	}
	caller.Set(SP, cfa, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.Set(X29, savedFP, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp})
	keepCalleeSaved(callee, caller)
	caller.CFA, caller.HasCFA = cfa, true
	caller.Trust = unwind.TrustFramePointer
	return true
}

// keepCalleeSaved assumes the caller's x19–x28 and d8–d15 are the
// callee's (where they were saved is not known without CFI), and passes
// the PAC mask on.
func keepCalleeSaved(callee, caller *unwind.Frame) {
	for r := 19; r <= 28; r++ {
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	for r := V0 + 8; r <= V0+15; r++ {
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	carryPACMask(callee, caller)
}

// stepScan looks for the first word above the stack pointer that,
// stripped of a PAC, points into code just after a call instruction. A
// frame record ({x29, x30}) puts the saved x29 just below it: when the
// callee's x29 points at that slot, the caller's x29 is recovered too.
func stepScan(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok {
		return false
	}
	slot, ra, found := stackscan.Find(as, sp, func(w uint64) (uint64, bool) {
		ra := stripPAC(callee, w)
		return ra, ra >= 0x1000 && stackscan.IsCode(as, ra) && afterCall(as, ra)
	})
	if !found {
		return false
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
	caller.Set(SP, slot+8, unwind.SaveLoc{Kind: unwind.LocValue})
	if fp, ok := callee.Get(X29); ok && fp == slot-8 {
		if v, err := readWord(as, fp); err == nil {
			caller.Set(X29, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp})
		}
	} else if ok {
		caller.Set(X29, fp, callee.Locs[X29])
	}
	keepCalleeSaved(callee, caller)
	caller.CFA, caller.HasCFA = slot+8, true
	caller.Trust = unwind.TrustScan
	return true
}

// A64 call instructions, as (instruction & mask) == value.
var callInsns = [...]struct{ mask, value uint32 }{
	{0xfc000000, 0x94000000}, // BL imm26
	{0xfffffc1f, 0xd63f0000}, // BLR Xn
	{0xfefff800, 0xd63f0800}, // BLRAA, BLRAAZ, BLRAB, BLRABZ (pointer authentication)
}

// afterCall reports whether the instruction before ra is a call: a
// return address is where a BL or BLR left the link register.
func afterCall(as unwind.AddrSpace, ra uint64) bool {
	insn, ok := readInsn(as, ra-4)
	if !ok || ra < 4 {
		return false
	}
	for _, c := range callInsns {
		if insn&c.mask == c.value {
			return true
		}
	}
	return false
}

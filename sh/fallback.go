package sh

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// linkRegister is pr, for stackscan.StepLinkRegister: the caller keeps
// r0–r15.
var linkRegister = stackscan.LinkRegister{LR: PR, SP: SP, PC: PC, NGPR: 16, AfterCall: afterCall}

// keepCalleeSaved assumes the caller's r8–r14 and gbr are the callee's:
// where they were saved is not known without CFI.
func keepCalleeSaved(callee, caller *unwind.Frame) {
	for r := 0; r < NumRegs; r++ {
		if r == SP || r == PR || !preserved(r) {
			continue
		}
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
}

// stepScan looks for the first word above the stack pointer that points
// into code just after a call: the return address a function without
// CFI pushed with "sts.l pr,@-r15". The caller's r15 is taken as just
// above it (what a frame that pushed nothing before pr has).
func stepScan(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok {
		return false
	}
	if pc, _ := callee.Get(PC); !callee.ExactPC && !stackscan.IsCode(as, pc-2) {
		return false
	}
	slot, ra, found := stackscan.Find(as, sp, func(w uint64) (uint64, bool) {
		return w, w >= 0x1000 && stackscan.IsCode(as, w) && afterCall(as, w)
	})
	if !found {
		return false
	}
	keepCalleeSaved(callee, caller)
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
	caller.Set(SP, slot+4, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.CFA, caller.HasCFA = slot+4, true
	caller.Trust = unwind.TrustScan
	return true
}

// afterCall reports whether the instruction two before ra (the call; ra
// is past its delay slot) links pr: "jsr @rN" (0x4N0b), "bsr disp"
// (0xbDDD) or "bsrf rN" (0x0N03).
func afterCall(as unwind.AddrSpace, ra uint64) bool {
	if ra < 4 {
		return false
	}
	insn, ok := readHalf(as, ra-4)
	if !ok {
		return false
	}
	return insn&0xf0ff == 0x400b || insn&0xf000 == 0xb000 || insn&0xf0ff == 0x0003
}

// readWord reads a 4-byte word of target memory.
func readWord(as unwind.AddrSpace, addr uint64) (uint64, error) {
	return cfirow.ReadSized(as, addr, 4)
}

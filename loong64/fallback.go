package loong64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// stepScan looks for the first word above the stack pointer that points
// into code just after a call: the return address a function without
// CFI saved in its frame.
func stepScan(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok {
		return false
	}
	if pc, _ := callee.Get(PC); !callee.ExactPC && !stackscan.IsCode(as, pc-4) {
		return false
	}
	slot, ra, found := stackscan.Find(as, sp, func(w uint64) (uint64, bool) {
		return w, w >= 0x1000 && stackscan.IsCode(as, w) && afterCall(as, w)
	})
	if !found {
		return false
	}
	for r := 22; r < 32; r++ {
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
	caller.Set(SP, slot+8, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.Set(Zero, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.CFA, caller.HasCFA = slot+8, true
	caller.Trust = unwind.TrustScan
	return true
}

// afterCall reports whether the instruction before ra links ra: "bl
// offs26" (opcode 0x15) or "jirl ra, rj, offs16" (opcode 0x13, rd = ra).
func afterCall(as unwind.AddrSpace, ra uint64) bool {
	if ra < 4 {
		return false
	}
	insn, ok := readInsn(as, ra-4)
	if !ok {
		return false
	}
	return insn>>26 == 0x15 || insn>>26 == 0x13 && insn&0x1f == RA
}

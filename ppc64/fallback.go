package ppc64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// stepLinkRegister finds the caller of an interrupted frame without CFI
// (frame 0, or the frame a signal interrupted) in the link register: a
// leaf, or a call through a null or wild pointer (the pc is not code),
// has not saved lr, and nothing else says where it returns. lr must
// follow a call. It is not believed when it is stale: pointing back into
// the function the pc is in (the return address of a call the function
// made earlier), or equal to what the back chain's lr save slot holds
// (then the back chain, which also gives the caller's r1, is the better
// step). The caller's r1 is the callee's: a leaf may not have a frame.
func (l *layout) stepLinkRegister(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	ra, ok1 := callee.Get(LR)
	sp, ok2 := callee.Get(SP)
	if !ok1 || !ok2 || ra == 0 || !stackscan.IsCode(as, ra) || !afterCall(as, ra) {
		return false
	}
	pc, _ := callee.Get(PC)
	if stackscan.IsCode(as, pc) {
		if stackscan.SameProc(as, pc, ra-4) {
			return false
		}
		if bc, err := l.readWord(as, sp); err == nil {
			if saved, err := l.readWord(as, bc+l.lrSaveOff); err == nil && saved == ra {
				return false
			}
		}
	}
	for r := 0; r < NumRegs; r++ {
		if v, ok := callee.Get(r); ok && r != PC {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocReg, Reg: LR})
	caller.CFA, caller.HasCFA = sp, true
	caller.Trust = unwind.TrustScan
	l.restoreTOC(as, caller)
	return true
}

// stepBackChain follows the back chain: every frame's first word, 0(r1),
// is its caller's r1 (the ABI requires it: "stdu r1,-n(r1)", "stwu" in
// 32-bit code, allocates a frame and stores the chain in one
// instruction), and a function that calls saves its return address at
// lrSaveOff of that caller's frame. It is used where there is no CFI, so everything is checked: the
// chain aligned and moving up the stack, the return address in code just
// after a call.
func (l *layout) stepBackChain(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok {
		return false
	}
	bc, err := l.readWord(as, sp)
	if err != nil || bc <= sp || bc%16 != 0 || bc-sp > stackscan.MaxFrameSize {
		return false
	}
	ra, err := l.readWord(as, bc+l.lrSaveOff)
	if err != nil || ra == 0 || !stackscan.IsCode(as, ra) || !afterCall(as, ra) {
		return false
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: bc + l.lrSaveOff})
	caller.Set(SP, bc, unwind.SaveLoc{Kind: unwind.LocMem, Addr: sp})
	keepCalleeSaved(callee, caller)
	caller.CFA, caller.HasCFA = bc, true
	caller.Trust = unwind.TrustFramePointer
	l.restoreTOC(as, caller)
	return true
}

// keepCalleeSaved assumes the caller's r2, r13, r14–r30 and f14–f31 are
// the callee's (where they were saved is not known without CFI). r31 is
// gcc's frame pointer: a function built with frame pointers and without
// CFI has changed it, and a caller's CFI that computes its CFA from r31
// must not get the callee's value (it fails instead, and the back chain
// steps that caller too).
func keepCalleeSaved(callee, caller *unwind.Frame) {
	for r := 0; r < NumRegs; r++ {
		if r == SP || r == LR || r == 31 || !preserved(r) {
			continue
		}
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
}

// stepScan looks for the first word above the frame's header that points
// into code just after a call instruction. The header (back chain, cr
// and lr save words, 24 bytes; back chain and lr save word in 32-bit
// code, 8 bytes) is skipped: its lr slot is where the callee saved its
// return address into this very frame. The caller's r1
// is not known; the slot above the return address is its closest lower
// bound.
func (l *layout) stepScan(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok {
		return false
	}
	slot, ra, found := stackscan.Find(as, sp+l.lrSaveOff+l.word, func(w uint64) (uint64, bool) {
		return w, w >= 0x1000 && w%4 == 0 && stackscan.IsCode(as, w) && afterCall(as, w)
	})
	if !found {
		return false
	}
	caller.Set(PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
	caller.Set(SP, slot+l.word, unwind.SaveLoc{Kind: unwind.LocValue})
	keepCalleeSaved(callee, caller)
	caller.CFA, caller.HasCFA = slot+l.word, true
	caller.Trust = unwind.TrustScan
	return true
}

// Power call instructions (those that set lr), as (instruction & mask)
// == value.
var callInsns = [...]struct{ mask, value uint32 }{
	{0xfc000003, 0x48000001}, // bl
	{0xfc000003, 0x48000003}, // bla
	{0xfc000001, 0x40000001}, // bcl, bcla
	{0xfc0007ff, 0x4c000421}, // bcctrl (bctrl)
	{0xfc0007ff, 0x4c000021}, // bclrl (blrl)
	{0xfc0007ff, 0x4c000461}, // bctarl
}

// afterCall reports whether the instruction before ra is a call: a
// return address is where a branch-and-link left lr. "bcl 20,31,.+4",
// which reads the pc into lr without calling, does not count.
func afterCall(as unwind.AddrSpace, ra uint64) bool {
	if ra < 4 {
		return false
	}
	insn, ok := readInsn(as, ra-4)
	if !ok || insn == 0x429f0005 {
		return false
	}
	for _, c := range callInsns {
		if insn&c.mask == c.value {
			return true
		}
	}
	return false
}

package sparc64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// Without CFI, a SPARC frame is found from its register window, as gdb's
// sparc64 unwinder does: a function that has executed its save runs in
// a window of its own, its caller's %o registers are its %i registers
// (%i6 = %fp is the caller's %sp, %i7 the caller's call), and the
// caller's %l and %i registers are in the save area at %fp + stack
// bias. A function that has not (a leaf, or an interrupted prologue)
// still runs in its caller's window: the caller's registers are its own,
// and %o7 is the call.

// maxPrologue bounds how many instructions from a function's start are
// searched for its save (gcc puts it first, or after a few setup
// instructions in code built with -fPIC).
const maxPrologue = 16

// hasSaved reports whether the function holding frame f's pc has
// executed its save by that pc: a save instruction between the
// function's start (from its symbol) and the pc. known is false when
// no symbol says where the function starts.
func hasSaved(as unwind.AddrSpace, f *unwind.Frame) (saved, known bool) {
	pc, _ := f.Get(PC)
	_, off, err := as.ProcName(f.LookupPC(PC))
	if err != nil {
		return false, false
	}
	start := f.LookupPC(PC) - off
	for a := start; a < pc && a < start+maxPrologue*4; a += 4 {
		insn, ok := readInsn(as, a)
		if !ok {
			return false, false
		}
		if isSave(insn) {
			return true, true
		}
	}
	return false, true
}

// stepLeaf finds the caller of an interrupted frame that has not moved
// to a window of its own: the caller's registers are the callee's, and
// it continues past the call %o7 holds.
func stepLeaf(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	o7, ok1 := callee.Get(O7)
	sp, ok2 := callee.Get(SP)
	if !ok1 || !ok2 || o7 == 0 || !callAt(as, o7) {
		return false
	}
	for r := 0; r < 32; r++ {
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.Set(PC, o7+retOffset, unwind.SaveLoc{Kind: unwind.LocReg, Reg: O7})
	caller.CFA, caller.HasCFA = sp+stackBias, true
	caller.Trust = unwind.TrustScan
	return true
}

// stepWindow finds the caller of a frame that has executed its save:
// %fp must be a biased 64-bit frame above %sp, the caller's window must
// be readable there, and %i7 must be a call.
func stepWindow(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	fp, ok1 := callee.Get(FP)
	sp, ok2 := callee.Get(SP)
	i7, ok3 := callee.Get(I7)
	if !ok1 || !ok2 || !ok3 || fp&1 == 0 || fp <= sp || fp-sp > stackscan.MaxFrameSize {
		return false
	}
	if i7 == 0 || !stackscan.IsCode(as, i7) || !callAt(as, i7) {
		return false
	}
	if restoreWindow(as, fp+stackBias, caller) != nil {
		return false
	}
	for r := G0; r < O0; r++ {
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	for o := O0; o < O0+8; o++ {
		if v, ok := callee.Get(o + 16); ok {
			caller.Set(o, v, unwind.SaveLoc{Kind: unwind.LocReg, Reg: o + 16})
		}
	}
	caller.Set(G0, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.Set(PC, i7+retOffset, unwind.SaveLoc{Kind: unwind.LocReg, Reg: I7})
	caller.CFA, caller.HasCFA = fp+stackBias, true
	caller.Trust = unwind.TrustFramePointer
	return true
}

// isOutermost reports whether a frame without unwind info is the
// outermost one: glibc's _start and __thread_start clear %fp before
// their first call, as the kernel's initial state leaves it.
func isOutermost(f *unwind.Frame) bool {
	fp, ok := f.Get(FP)
	return ok && fp == 0
}

// callAt reports whether the instruction at addr is a call that links
// %o7: "call" (format 1) or "jmpl ..., %o7" (calls through pointers).
func callAt(as unwind.AddrSpace, addr uint64) bool {
	insn, ok := readInsn(as, addr)
	if !ok {
		return false
	}
	return insn>>30 == 1 || insn>>30 == 2 && insn>>19&0x3f == 0x38 && insn>>25&0x1f == O7
}

// isSave reports whether insn is "save" (format 3, op3 0x3c).
func isSave(insn uint32) bool { return insn>>30 == 2 && insn>>19&0x3f == 0x3c }

// readInsn reads the big-endian instruction word at addr.
func readInsn(as unwind.AddrSpace, addr uint64) (uint32, bool) {
	var b [4]byte
	if addr%4 != 0 || as.ReadMem(addr, b[:]) != nil {
		return 0, false
	}
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]), true
}

package mips

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// keepCalleeSaved assumes the caller's s0–s7, gp and s8 are the
// callee's: where they were saved is not known without CFI.
func keepCalleeSaved(callee, caller *unwind.Frame) {
	for r := 0; r < 32; r++ {
		if r == SP || r == RA || !preserved(r) {
			continue
		}
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.Set(Zero, 0, unwind.SaveLoc{Kind: unwind.LocValue})
}

// isOutermost reports whether a frame without unwind info is the
// outermost one: glibc's __start (the ELF entry point), where gdb stops
// too; scanning above it would only find stale words.
func (a Arch) isOutermost(as unwind.AddrSpace, f *unwind.Frame) bool {
	return stackscan.InFunction(as, f.LookupPC(PC), "__start", "_start")
}

// afterCall reports whether the instruction two before ra (the call; ra
// is past its delay slot) links ra: jal, jalr (rd = ra), or the
// and-link branches bal/bgezal/bltzal.
func (a Arch) afterCall(as unwind.AddrSpace, ra uint64) bool {
	if ra < 8 {
		return false
	}
	insn, ok := a.readInsn(as, ra-8)
	if !ok {
		return false
	}
	switch insn >> 26 {
	case 3: // jal
		return true
	case 0: // SPECIAL: jalr rd, rs
		return insn&0x3f == 9 && insn>>11&0x1f == RA
	case 1: // REGIMM: bltzal, bgezal (bal is bgezal zero)
		rt := insn >> 16 & 0x1f
		return rt == 0x10 || rt == 0x11
	}
	return false
}

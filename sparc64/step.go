package sparc64

import (
	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what applying a CFI row needs of the SPARC register file.
// Every integer register is "preserved": a row that says nothing of one
// describes code that has not moved to a new window (a leaf, a prologue
// before its save), where the caller's registers are the callee's. No
// register is the CFA's (SP -1): the CFA is the caller's %sp plus the
// stack bias, and step fixes the caller's %sp after the row.
var cfiRegs = cfirow.Regs{N: 32, SP: -1, Preserved: func(r int) bool { return r < 32 }, Name: RegName, Word: 8}

// stepCFI applies a CFI row. A row after the function's save
// (DW_CFA_GNU_window_save) describes a frame in a window of its own: the
// caller's %l and %i registers are in the save area at the CFA, and its
// %o registers are the callee's %i registers (the window overlap; gcc
// states only %o7's, as "r15 in r31"). The caller's %sp is the CFA less
// the stack bias, and its pc is the return address column (%o7) plus 8.
// A zero %o7 (glibc's _start and __thread_start make no call before
// theirs) or an undefined one ends the stack.
func stepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	cfa, raDefined, err := cfirow.Apply(as, &r.Row, r.RAColumn, cfiRegs, callee, caller)
	if err != nil {
		return unwind.StepEnd, err
	}
	if r.Row.WindowSave {
		if err := restoreWindow(as, cfa, caller); err != nil {
			return unwind.StepEnd, err
		}
		for o := O0; o < O0+8; o++ {
			if r.Row.Rule(uint64(o)).Kind != cfi.Unspecified {
				continue
			}
			if v, ok := callee.Get(o + 16); ok {
				caller.Set(o, v, unwind.SaveLoc{Kind: unwind.LocReg, Reg: o + 16})
			}
		}
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	ra, _ := caller.Get(int(r.RAColumn))
	if ra == 0 {
		return unwind.StepEnd, nil
	}
	caller.Set(PC, ra+retOffset, caller.Locs[r.RAColumn])
	caller.Set(SP, cfa-stackBias, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.Set(G0, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	cfirow.SetCaller(caller, cfa, r.Signal)
	return unwind.StepCaller, nil
}

// restoreWindow reads a frame's %l0–%l7 and %i0–%i7 from the save area
// at addr (its %sp + stack bias), where the kernel spills every window
// before it writes a core or delivers a signal.
func restoreWindow(as unwind.AddrSpace, addr uint64, f *unwind.Frame) error {
	var b [windowSize]byte
	if err := as.ReadMem(addr, b[:]); err != nil {
		return err
	}
	for i := 0; i < 16; i++ {
		f.Set(L0+i, as.ByteOrder().Uint64(b[i*8:]), unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr + uint64(i)*8})
	}
	return nil
}

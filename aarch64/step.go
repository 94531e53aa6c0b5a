package aarch64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what applying a CFI row needs of the AArch64 register file.
var cfiRegs = cfirow.Regs{N: NumRegs, SP: SP, Preserved: preserved, Name: RegName, Word: 8}

// stepCFI applies a CFI row. The caller's PC is the value of the
// return-address column (x30 in every CIE gcc and clang emit), stripped
// of its pointer-authentication code; its sp is the CFA. A row without a
// rule for x30 (a leaf, a prologue) leaves the return address in the
// link register. An undefined return address marks the outermost frame
// (_start, thread_start).
func stepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	cfa, raDefined, err := cfirow.Apply(as, &r.Row, r.RAColumn, cfiRegs, callee, caller)
	if err != nil {
		return unwind.StepEnd, err
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	ra, _ := caller.Get(int(r.RAColumn))
	caller.Set(PC, stripPAC(callee, ra), caller.Locs[r.RAColumn])
	cfirow.SetCaller(caller, cfa, r.Signal)
	return unwind.StepCaller, nil
}

package arm

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what applying a CFI row needs of the ARM register file.
var cfiRegs = cfirow.Regs{N: NumRegs, SP: SP, Preserved: preserved, Name: RegName, Word: 4}

// stepCFI applies a CFI row. The caller's pc is the return-address
// column's value (lr, r14, in every CIE gcc emits), its bit 0 the
// caller's Thumb state; its sp is the CFA. An undefined return address
// marks the outermost frame.
func stepCFI(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	cfa, raDefined, err := cfirow.Apply(as, &r.row, r.raCol, cfiRegs, callee, caller)
	if err != nil {
		return unwind.StepEnd, err
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	ra, _ := caller.Get(int(r.raCol))
	if ra == 0 {
		return unwind.StepEnd, nil
	}
	setReturn(callee, caller, ra, caller.Locs[r.raCol])
	cfirow.SetCaller(caller, cfa, r.signal)
	return unwind.StepCaller, nil
}

package loong64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what applying a CFI row needs of the LoongArch register file.
var cfiRegs = cfirow.Regs{N: F0 + 32, SP: SP, Preserved: preserved, Name: RegName, Word: 8}

// stepCFI applies a CFI row. The caller's PC is the value of the
// return-address column (ra); its sp is the CFA. A row without a rule
// for ra (a leaf, a prologue) leaves the return address in ra. An
// undefined or zero return address marks the outermost frame.
func stepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	cfa, raDefined, err := cfirow.Apply(as, &r.Row, r.RAColumn, cfiRegs, callee, caller)
	if err != nil {
		return unwind.StepEnd, err
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	ra, _ := caller.Get(int(r.RAColumn))
	if ra == 0 {
		return unwind.StepEnd, nil
	}
	caller.Set(PC, ra, caller.Locs[r.RAColumn])
	caller.Set(Zero, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	cfirow.SetCaller(caller, cfa, r.Signal)
	return unwind.StepCaller, nil
}

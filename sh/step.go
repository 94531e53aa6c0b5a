package sh

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what applying a CFI row needs of the SuperH register file.
var cfiRegs = cfirow.Regs{N: NumRegs, SP: SP, Preserved: preserved, Name: RegName, Word: 4}

// stepCFI applies a CFI row: the caller's pc is the return-address
// column's value (pr: past the call and its delay slot), as
// cfirow.StepLinkRegister says. SuperH has no zero register.
func stepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	return cfirow.StepLinkRegister(as, r, cfiRegs, PC, cfirow.NoZeroReg, callee, caller)
}

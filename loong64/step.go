package loong64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what applying a CFI row needs of the LoongArch register file.
var cfiRegs = cfirow.Regs{N: F0 + 32, SP: SP, Preserved: preserved, Name: RegName, Word: 8}

// stepCFI applies a CFI row: the caller's pc is the return-address
// column's value (ra), as cfirow.StepLinkRegister says.
func stepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	return cfirow.StepLinkRegister(as, r, cfiRegs, PC, Zero, callee, caller)
}

package riscv64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what applying a CFI row needs of the RISC-V register file.
var cfiRegs = cfirow.Regs{N: NumRegs, SP: SP, Preserved: preserved, Name: RegName, Word: 8}

// stepCFI applies a CFI row: the caller's pc is the return-address
// column's value (ra), as cfirow.StepLinkRegister says.
func stepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	return cfirow.StepLinkRegister(as, r, cfiRegs, PC, X0, callee, caller)
}

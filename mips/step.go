package mips

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what applying a CFI row needs of the register file, with
// the ABI's word size.
func (a Arch) cfiRegs() cfirow.Regs {
	return cfirow.Regs{N: F0 + 32, SP: SP, Preserved: preserved, Name: RegName, Word: a.word()}
}

// stepCFI applies a CFI row: the caller's pc is the return-address
// column's value (ra: past the call and its delay slot), as
// cfirow.StepLinkRegister says.
func (a Arch) stepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	return cfirow.StepLinkRegister(as, r, a.cfiRegs(), PC, Zero, callee, caller)
}

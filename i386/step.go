package i386

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what CFI leaves to the i386 psABI: the callee-saved
// registers keep their values where the row says nothing.
var cfiRegs = cfirow.Regs{N: NumRegs, SP: ESP, Word: 4, Name: RegName,
	Preserved: func(r int) bool { return r < len(calleeSaved) && calleeSaved[r] }}

// stepCFI applies a CFI row. The caller of a frame whose CIE has the 'S'
// augmentation (the vDSO's sigreturn trampolines) was interrupted, not
// calling: its PC is exact and its registers come from the signal
// context.
func stepCFI(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, err := cfirow.Step(as, &r.row, r.raCol, cfiRegs, EIP, callee, caller)
	if err != nil || res != unwind.StepCaller {
		return res, err
	}
	cfirow.SetCaller(caller, caller.CFA, r.signal)
	return res, nil
}

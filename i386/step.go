package i386

import (
	"github.com/coreunwind/coreunwind/internal/cfistep"
	"github.com/coreunwind/coreunwind/unwind"
)

// abi is what CFI leaves to the i386 psABI.
var abi = cfistep.ABI{
	NumRegs: NumRegs, PC: EIP, SP: ESP, PtrSize: 4,
	CalleeSaved: calleeSaved, RegName: RegName,
}

// stepCFI applies a CFI row. The caller of a frame whose CIE has the 'S'
// augmentation (the vDSO's sigreturn trampolines) was interrupted, not
// calling: its PC is exact and its registers come from the signal
// context.
func stepCFI(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, err := cfistep.Apply(as, &abi, &r.row, r.raCol, callee, caller)
	if err != nil || res != unwind.StepCaller {
		return res, err
	}
	if r.signal {
		caller.ExactPC = true
		caller.Trust = unwind.TrustContext
	}
	return res, nil
}

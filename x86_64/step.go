package x86_64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what CFI leaves to the x86-64 psABI: the callee-saved
// registers keep their values where the row says nothing.
var cfiRegs = cfirow.Regs{N: NumRegs, SP: RSP, Word: 8, Name: RegName,
	Preserved: func(r int) bool { return r < len(calleeSaved) && calleeSaved[r] }}

// stepCFI applies a CFI row (unwind/cfirow: the CFA, then every
// register's rule; an undefined return address marks the outermost
// frame, _start or clone). Rules built from dynamic unwind info give
// their own trust.
func stepCFI(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, err := cfirow.Step(as, &r.row, r.raCol, cfiRegs, RIP, callee, caller)
	if err != nil || res != unwind.StepCaller {
		return res, err
	}
	if r.trust != unwind.TrustNone {
		caller.Trust = r.trust
	}
	if r.signal {
		// The caller of a signal trampoline was interrupted, not calling:
		// its PC is exact, and its registers come from the signal context.
		caller.ExactPC = true
		caller.Trust = unwind.TrustContext
	}
	return res, nil
}

package x86_64

import (
	"github.com/coreunwind/coreunwind/internal/cfistep"
	"github.com/coreunwind/coreunwind/unwind"
)

// abi is what CFI leaves to the x86-64 psABI.
var abi = cfistep.ABI{
	NumRegs: NumRegs, PC: RIP, SP: RSP, PtrSize: 8,
	CalleeSaved: calleeSaved[:], RegName: RegName,
}

// stepCFI applies a CFI row (internal/cfistep: the CFA, then every
// register's rule; an undefined return address marks the outermost
// frame, _start or clone). Rules built from dynamic unwind info give
// their own trust.
func stepCFI(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, err := cfistep.Apply(as, &abi, &r.row, r.raCol, callee, caller)
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

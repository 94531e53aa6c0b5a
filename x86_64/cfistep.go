package x86_64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what applying a CFI row needs of the x86-64 register file:
// a register the row leaves unspecified keeps its value only if the
// psABI makes it callee-saved.
var cfiRegs = cfirow.Regs{N: NumRegs, SP: RSP, Preserved: func(r int) bool { return calleeSaved[r] }, Name: RegName, Word: 8}

// stepCFI applies a CFI row: the CFA first, then every register's rule
// relative to it. The caller's rsp is the CFA (psABI), its rip is the
// return-address column; an undefined return address marks the
// outermost frame (_start, clone).
func stepCFI(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	cfa, raDefined, err := cfirow.Apply(as, &r.row, r.raCol, cfiRegs, callee, caller)
	if err != nil {
		return unwind.StepEnd, err
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	if r.raCol != RIP {
		v, _ := caller.Get(int(r.raCol))
		caller.Set(RIP, v, caller.Locs[r.raCol])
	}
	if _, ok := caller.Get(RSP); !ok {
		caller.Set(RSP, cfa, unwind.SaveLoc{Kind: unwind.LocValue})
	}
	caller.CFA, caller.HasCFA = cfa, true
	caller.Trust = unwind.TrustCFI
	if r.trust != unwind.TrustNone {
		caller.Trust = r.trust
	}
	if r.signal {
		// The caller of a signal trampoline was interrupted, not calling:
		// its PC is exact, and its registers come from the signal context.
		caller.ExactPC = true
		caller.Trust = unwind.TrustContext
	}
	return unwind.StepCaller, nil
}

package i386

import (
	"github.com/coreunwind/coreunwind/internal/x86frame"
	"github.com/coreunwind/coreunwind/unwind"
)

func init() { unwind.Register(Arch{}) }

// Arch is the i386 unwinder. It is stateless; what it learns about an
// address is kept in the caller's unwind.Cache.
type Arch struct{}

func (Arch) Name() string         { return "i386" }
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return EIP }
func (Arch) SPReg() int           { return ESP }

// Step finds callee's caller: by CFI where the address has it, by the
// sigcontext where the code is a sigreturn trampoline, else by the
// heuristics of internal/x86frame.Fallback (frame-pointer chain, stack
// scan). Each method records its trust in caller.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	pc, _ := callee.Get(EIP)
	r := ruleFor(as, cache, callee.LookupPC(EIP), pc)
	var why error
	switch r.kind {
	case ruleCFI:
		res, err := stepCFI(as, r, callee, caller)
		if err == nil {
			return res, nil
		}
		why = err
	case ruleSigreturn:
		err := stepSigreturn(as, r.tramp, callee, caller)
		if err == nil {
			return unwind.StepCaller, nil
		}
		why = err
	default:
		why = r.err
	}
	return x86frame.Fallback(as, &frameRegs, callee, caller, r.kind == ruleNone, why)
}

// IsSignalFrame reports whether f is a signal trampoline: its CFI has
// the 'S' augmentation or its code is a sigreturn sequence.
func (Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(EIP)
	r := ruleFor(as, cache, f.LookupPC(EIP), pc)
	return r.signal || r.kind == ruleSigreturn
}

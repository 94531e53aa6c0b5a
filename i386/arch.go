package i386

import (
	"fmt"

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
// frame-pointer chain, else by scanning the stack for a return address.
// Each method records its trust in caller. The depth argument is not
// used: callee.ExactPC says whether the PC is a return address.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame, _ int) (unwind.StepResult, error) {
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
	caller.Reset()
	if callee.ExactPC && !x86frame.IsCode(as, pc) && x86frame.StepBadCall(as, &frameRegs, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if x86frame.StepFramePointer(as, &frameRegs, callee, caller) {
		return unwind.StepCaller, nil
	}
	if fp, ok := callee.Get(EBP); ok && fp == 0 && r.kind == ruleNone {
		// _start and thread entry points clear ebp: with no unwind info
		// a zero frame pointer is the outermost frame, not a failure.
		// The check comes before the stack scan: older static glibcs
		// have no CFI for _start, and above it lie stale return
		// addresses a scan would take for callers.
		return unwind.StepEnd, nil
	}
	caller.Reset()
	if x86frame.StepScan(as, &frameRegs, callee, caller) {
		return unwind.StepCaller, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (frame pointer and stack scan found no caller)", pc, why)
}

// IsSignalFrame reports whether f is a signal trampoline: its CFI has
// the 'S' augmentation or its code is a sigreturn sequence.
func (Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(EIP)
	r := ruleFor(as, cache, f.LookupPC(EIP), pc)
	return r.signal || r.kind == ruleSigreturn
}

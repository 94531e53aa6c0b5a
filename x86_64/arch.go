package x86_64

import (
	"errors"

	"github.com/coreunwind/coreunwind/internal/x86frame"
	"github.com/coreunwind/coreunwind/unwind"
)

// Arch is the x86-64 unwinder. It is stateless; what it learns about an
// address is kept in the caller's unwind.Cache.
type Arch struct {
	// x32 is the x32 ABI: the x86-64 instruction set in 64-bit mode with
	// 4-byte pointers (ELFCLASS32, EM_X86_64). Registers, stack slots and
	// return addresses stay 8 bytes; only the kernel's and libc's
	// structures with pointers in them (signal frames) change layout.
	x32 bool
}

func (a Arch) Name() string {
	if a.x32 {
		return "x32"
	}
	return "x86_64"
}
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return RIP }
func (Arch) SPReg() int           { return RSP }

// Step finds callee's caller: by CFI where the address has it, by the
// rt_sigreturn trampoline's ucontext where the code is the trampoline,
// else by the heuristics of internal/x86frame.Fallback (frame-pointer
// chain, stack scan). Each method records its trust in caller.
func (a Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	pc, _ := callee.Get(RIP)
	r := ruleFor(as, cache, callee.LookupPC(RIP), pc)
	if r.signal || r.kind == ruleSigreturn {
		callee.Signal = true // as IsSignalFrame: see StepMarksSignal
	}
	var why error
	switch r.kind {
	case ruleCFI:
		res, err := stepCFI(as, &r, callee, caller)
		if err == nil {
			return res, nil
		}
		why = err
	case ruleSigreturn:
		err := stepSigreturn(as, a.sigframe(), callee, caller)
		if err == nil {
			return unwind.StepCaller, nil
		}
		why = err
	default:
		why = r.err
		if r.kind == ruleNone && isCloneChild(as, cache, callee, caller) {
			return unwind.StepEnd, nil
		}
	}
	return x86frame.Fallback(as, &frameRegs, callee, caller, r.kind == ruleNone, why)
}

// StepMarksSignal says that Step sets callee.Signal where IsSignalFrame
// would say true (unwind.SignalMarker).
func (Arch) StepMarksSignal() {}

// IsSignalFrame reports whether f is the signal trampoline: its CFI has
// the 'S' augmentation or its code is the rt_sigreturn sequence.
func (Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(RIP)
	r := ruleFor(as, cache, f.LookupPC(RIP), pc)
	return r.signal || r.kind == ruleSigreturn
}

var errNoCFI = errors.New("no CFI")

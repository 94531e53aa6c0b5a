package x86_64

import (
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Arch is the x86-64 unwinder. It is stateless; what it learns about an
// address is kept in the caller's unwind.Cache.
type Arch struct{}

func (Arch) Name() string         { return "x86_64" }
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return RIP }
func (Arch) SPReg() int           { return RSP }

// Step finds callee's caller: by CFI where the address has it, by the
// rt_sigreturn trampoline's ucontext where the code is the trampoline,
// else by the frame-pointer chain, else by scanning the stack for a
// return address. Each method records its trust in caller.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	pc, _ := callee.Get(RIP)
	r := ruleFor(as, cache, callee.LookupPC(RIP), pc)
	var why error
	switch r.kind {
	case ruleCFI:
		res, err := stepCFI(as, &r, callee, caller)
		if err == nil {
			return res, nil
		}
		why = err
	case ruleSigreturn:
		err := stepSigreturn(as, callee, caller)
		if err == nil {
			return unwind.StepCaller, nil
		}
		why = err
	default:
		why = r.err
	}
	caller.Reset()
	if callee.ExactPC && !isCode(as, pc) && stepBadCall(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if stepFramePointer(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if stepScan(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if fp, ok := callee.Get(RBP); ok && fp == 0 && r.kind == ruleNone {
		// _start and thread entry points clear rbp: with no unwind info
		// and no return address above, a zero frame pointer is the
		// outermost frame, not a failure.
		return unwind.StepEnd, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (frame pointer and stack scan found no caller)", pc, why)
}

// IsSignalFrame reports whether f is the signal trampoline: its CFI has
// the 'S' augmentation or its code is the rt_sigreturn sequence.
func (Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(RIP)
	r := ruleFor(as, cache, f.LookupPC(RIP), pc)
	return r.signal || r.kind == ruleSigreturn
}

// readWord reads a little-endian 64-bit word of target memory.
func readWord(as unwind.AddrSpace, addr uint64) (uint64, error) {
	var b [8]byte
	if err := as.ReadMem(addr, b[:]); err != nil {
		return 0, err
	}
	return as.ByteOrder().Uint64(b[:]), nil
}

// isCode reports whether addr is in executable memory. Address spaces
// that cannot tell accept every readable address.
func isCode(as unwind.AddrSpace, addr uint64) bool {
	if cc, ok := as.(unwind.CodeChecker); ok {
		return cc.IsCode(addr)
	}
	var b [1]byte
	return as.ReadMem(addr, b[:]) == nil
}

var errNoCFI = errors.New("no CFI")

// Package arm unwinds 32-bit ARM (armhf, armel) Linux stacks: the core's
// r0–r15 and cpsr, ARM and Thumb code, DWARF CFI where an object has it,
// else the ARM EHABI index (.ARM.exidx, decoded by arm/exidx) whose
// unwind opcodes this package executes, the sigreturn trampolines, and
// the frame-pointer and stack-scan fallbacks. It registers itself with
// package unwind as "arm"; import it for its side effect.
package arm

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

func init() { unwind.Register(Arch{}) }

// Arch is the ARM unwinder. It is stateless; what it learns about an
// address is kept in the caller's unwind.Cache.
type Arch struct{}

func (Arch) Name() string         { return "arm" }
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return PC }
func (Arch) SPReg() int           { return SP }

// Step finds callee's caller: from the signal context where the code is
// a sigreturn trampoline, by DWARF CFI where the address has it, else by
// the EHABI index; without either, by what the function's prologue
// pushed, an interrupted frame by the link register, else by the ARM
// frame-pointer chain, else by scanning the stack for a return address. Each method records its trust in caller.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	pc, _ := callee.Get(PC)
	r := ruleFor(as, cache, callee.LookupPC(PC), pc)
	var why error
	switch r.kind {
	case ruleCFI:
		res, err := stepCFI(as, r, callee, caller)
		if err == nil {
			return res, nil
		}
		why = err
	case ruleExidx:
		res, err := stepExidx(as, r, callee, caller)
		if err == nil {
			return res, nil
		}
		why = err
	case ruleCantUnwind:
		// EXIDX_CANTUNWIND: _start and clone's child say so, but ld also
		// fills the index with it for code compiled without tables
		// (most of Debian's armhf libc), which gdb unwinds by its
		// prologue. So does this: a frame there whose prologue is not
		// understood (or has no symbol) is the outermost unless lr (if
		// interrupted) or the checked frame-pointer chain give a
		// caller; it is not scanned (above _start or a thread's entry
		// a scan finds only stale return addresses).
		why = fmt.Errorf("pc %#x: EXIDX_CANTUNWIND", pc)
	case ruleSigreturn, ruleRTSigreturn:
		err := stepSigreturn(as, r.kind == ruleRTSigreturn, callee, caller)
		if err == nil {
			return unwind.StepCaller, nil
		}
		why = err
	default:
		why = r.err
	}
	caller.Reset()
	if stepPrologue(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if callee.ExactPC && stepLinkRegister(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if stepFramePointer(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if stepThumbFramePointer(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if r.kind == ruleCantUnwind {
		return unwind.StepEnd, nil
	}
	caller.Reset()
	if stepScan(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (link register, frame pointer and stack scan found no caller)", pc, why)
}

// IsSignalFrame reports whether f is a signal trampoline's frame: its
// CFI has the 'S' augmentation or its code is a sigreturn sequence.
func (Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(PC)
	r := ruleFor(as, cache, f.LookupPC(PC), pc)
	return r.signal || r.kind == ruleSigreturn || r.kind == ruleRTSigreturn
}

// readWord reads a 32-bit word of target memory.
func readWord(as unwind.AddrSpace, addr uint64) (uint64, error) {
	return cfirow.ReadSized(as, addr&0xffffffff, 4)
}

// setReturn sets caller's pc and Thumb state from a return address (or
// a value popped into pc): bit 0 set means Thumb code, and is not part
// of the address.
func setReturn(callee, caller *unwind.Frame, ra uint64, loc unwind.SaveLoc) {
	caller.Set(PC, ra&^1, loc)
	cpsr, _ := callee.Get(CPSR)
	if ra&1 != 0 {
		cpsr |= cpsrThumb
	} else {
		cpsr &^= cpsrThumb
	}
	caller.Set(CPSR, cpsr, unwind.SaveLoc{Kind: unwind.LocValue})
}

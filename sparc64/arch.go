// Package sparc64 unwinds 64-bit SPARC Linux stacks: the register file
// in DWARF numbering, the core's register notes, DWARF CFI stepping with
// SPARC's register windows (DW_CFA_GNU_window_save, the stack bias, the
// return address %o7 + 8), glibc's rt_sigreturn stub, and the
// register-window fallback for code without CFI. It registers itself
// with package unwind as "sparc64"; import it for its side effect.
package sparc64

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

func init() { unwind.Register(Arch{}) }

// Arch is the SPARC V9 (64-bit) unwinder. It is stateless; what it
// learns about an address is kept in the caller's unwind.Cache.
type Arch struct{}

func (Arch) Name() string         { return "sparc64" }
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return PC }
func (Arch) SPReg() int           { return SP }

// Step finds callee's caller: from the signal context where the code is
// the rt_sigreturn stub, by CFI where the address has it, else from the
// register window: the caller's window when the function has not
// executed its save (an interrupted leaf, or a pc outside the code), the
// saved window at %fp when it has. Each method records its trust in caller.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, done, _, why := cfirow.StepKnown(cfiSteps{}, as, cache, "sparc64", sigreturnKind, PC, callee, caller)
	if done {
		return res, why
	}
	pc, _ := callee.Get(PC)
	saved, known := hasSaved(as, callee)
	// A pc outside the code (a call through a NULL or wild pointer)
	// executed no save either: its caller's call is in %o7.
	notCode := !known && !stackscan.IsCode(as, pc)
	if callee.ExactPC && (known && !saved || notCode) && stepLeaf(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if isOutermost(callee) {
		return unwind.StepEnd, nil
	}
	if stepWindow(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if callee.ExactPC && !known && stepLeaf(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (no register window leads to a caller)", pc, why)
}

// cfiSteps is what cfirow.StepKnown applies for this arch.
type cfiSteps struct{}

func (cfiSteps) StepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	return stepCFI(as, r, callee, caller)
}
func (cfiSteps) StepTrampoline(as unwind.AddrSpace, _ cfirow.Kind, callee, caller *unwind.Frame) error {
	return stepSigreturn(as, callee, caller)
}

// IsSignalFrame reports whether f is the signal trampoline: its CFI has
// the 'S' augmentation or its code is the rt_sigreturn stub.
func (Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(PC)
	return ruleFor(as, cache, f.LookupPC(PC), pc).IsSignalFrame()
}

// DynListAddr is unwind.DynListArch. libunwind has no SPARC port, so no
// SPARC program registers unwind info through _U_dyn_info_list; its
// accessor's code is not decoded here.
func (Arch) DynListAddr(as unwind.AddrSpace, f *elf.File, bias, fn uint64) (uint64, error) {
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: not decoded for sparc64: %w", fn, unwind.ErrNoInfo)
}

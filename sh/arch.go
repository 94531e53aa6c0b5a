// Package sh unwinds SuperH (sh4) Linux stacks: the register file in
// DWARF numbering, the core's register notes, DWARF CFI stepping with
// the return address in pr, the sigreturn and rt_sigreturn trampolines
// (the kernel's vDSO and qemu-user's), and for code without CFI the
// function's prologue (its pushes, stack adjustment and frame pointer,
// as gdb's sh_analyze_prologue reads them), the return address still
// in pr, and a stack scan. It registers itself with package unwind as
// "sh"; import it for its side effect.
package sh

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

func init() { unwind.Register(Arch{}) }

// Arch is the SuperH unwinder. It is stateless; what it learns about an
// address is kept in the caller's unwind.Cache.
type Arch struct{}

func (Arch) Name() string         { return "sh" }
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return PC }
func (Arch) SPReg() int           { return SP }

// Step finds callee's caller: from the signal context where the code is
// a sigreturn trampoline, by CFI where the address has it, else by the
// function's prologue, else (in an interrupted frame) by the return
// address still in pr, else by scanning the stack for a return address.
// Each method records its trust in caller.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, done, r, why := cfirow.StepKnown(cfiSteps{}, as, cache, "sh", trampolineKind, PC, callee, caller)
	if done {
		return res, why
	}
	pc, _ := callee.Get(PC)
	if r.Kind == cfirow.KindNone && stackscan.InFunction(as, callee.LookupPC(PC), "_start") {
		return unwind.StepEnd, nil
	}
	if p, ok := readPrologue(as, callee); ok && stepPrologue(as, p, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if callee.ExactPC && stackscan.StepLinkRegister(as, linkRegister, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if stepScan(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (no prologue, no return address in pr, nothing found by a stack scan)", pc, why)
}

// cfiSteps is what cfirow.StepKnown applies for this arch.
type cfiSteps struct{}

func (cfiSteps) StepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	return stepCFI(as, r, callee, caller)
}
func (cfiSteps) StepTrampoline(as unwind.AddrSpace, k cfirow.Kind, callee, caller *unwind.Frame) error {
	return stepSigreturn(as, k, callee, caller)
}

// IsSignalFrame reports whether f is a signal trampoline: its CFI has
// the 'S' augmentation or its code is a sigreturn sequence.
func (Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(PC)
	return ruleFor(as, cache, f.LookupPC(PC), pc).IsSignalFrame()
}

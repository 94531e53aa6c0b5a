// Package aarch64 unwinds AArch64 (ARM64) Linux stacks: the register file
// in DWARF numbering, the core's register notes, DWARF CFI stepping with
// the return address in x30, pointer-authentication stripping, the
// rt_sigreturn trampoline, and the frame-record and stack-scan fallbacks
// for code without CFI. It registers itself with package unwind as
// "aarch64"; import it for its side effect.
package aarch64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

func init() { unwind.Register(Arch{}) }

// Arch is the AArch64 unwinder. It is stateless; what it learns about an
// address is kept in the caller's unwind.Cache.
type Arch struct{}

func (Arch) Name() string         { return "aarch64" }
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return PC }
func (Arch) SPReg() int           { return SP }

// Step finds callee's caller: from the signal context where the code is
// the rt_sigreturn trampoline, by CFI where the address has it, else (in
// an interrupted frame) by the link register, else by the frame-record
// chain (or, for a function whose prologue saves only x30, that save),
// else by scanning the stack for a return address. Each method
// records its trust in caller. callee.ExactPC, not the depth, tells frame
// 0 and signal-interrupted frames from callers.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, done, r, why := cfirow.StepKnown(cfiSteps{}, as, cache, "aarch64", sigreturnKind, PC, callee, caller)
	if done {
		return res, why
	}
	pc, _ := callee.Get(PC)
	if callee.ExactPC && stepLinkRegister(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if r.Kind == cfirow.KindNone && !callee.ExactPC && isOutermost(as, callee) {
		return unwind.StepEnd, nil
	}
	// A caller frame without CFI: what its prologue saved says whether
	// x29 is its own frame record or still an older frame's.
	kind, size := prologueUnknown, uint64(0)
	if !callee.ExactPC {
		kind, size = readPrologue(as, callee.LookupPC(PC))
	}
	caller.Reset()
	if kind == prologueSavedLR && stepSavedLR(as, callee, caller, size) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if kind != prologueSavedLR && stepFrameRecord(as, callee, caller, size) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if stepScan(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (link register, frame records and stack scan found no caller)", pc, why)
}

// cfiSteps is what cfirow.StepKnown applies for this arch.
type cfiSteps struct{}

func (cfiSteps) StepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	return stepCFI(as, r, callee, caller)
}
func (cfiSteps) StepTrampoline(as unwind.AddrSpace, _ cfirow.Kind, callee, caller *unwind.Frame) error {
	return stepSigreturn(as, callee, caller)
}

// isOutermost reports whether a caller frame without unwind info is the
// outermost one: its x29 is zero (AAPCS64 6.2.3: a zero frame record ends
// the chain; _start and thread entry points clear x29 before their first
// call), or it is in _start, the ELF entry point, which old glibc (2.19)
// enters with x29 pointing at argc instead, and without CFI. gdb stops at
// the entry function the same way. Scanning above either would only find
// stale return addresses.
func isOutermost(as unwind.AddrSpace, f *unwind.Frame) bool {
	if fp, ok := f.Get(X29); ok && fp == 0 {
		return true
	}
	return stackscan.InFunction(as, f.LookupPC(PC), "_start")
}

// IsSignalFrame reports whether f is the signal trampoline: its CFI has
// the 'S' augmentation or its code is the rt_sigreturn sequence.
func (Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(PC)
	r := ruleFor(as, cache, f.LookupPC(PC), pc)
	return r.IsSignalFrame()
}

// readWord reads a 64-bit word of target memory.
func readWord(as unwind.AddrSpace, addr uint64) (uint64, error) { return cfirow.ReadSized(as, addr, 8) }

// readInsn reads the 32-bit instruction at addr (A64 instructions are
// little-endian even on big-endian data configurations).
func readInsn(as unwind.AddrSpace, addr uint64) (uint32, bool) {
	var b [4]byte
	if addr%4 != 0 || as.ReadMem(addr, b[:]) != nil {
		return 0, false
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24, true
}

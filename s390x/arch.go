// Package s390x unwinds IBM Z (s390x, 64-bit, big-endian) Linux stacks:
// the register file in DWARF numbering, the core's register notes, DWARF
// CFI stepping with the return address in r14 and the CFA 160 bytes
// above the caller's stack pointer, the sigreturn and rt_sigreturn
// trampolines, and the link-register, back-chain and stack-scan
// fallbacks for code without CFI. It registers itself with package
// unwind as "s390x", and its 31-bit variant as "s390" (layout.go says
// what differs); import it for its side effect.
package s390x

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

func init() {
	unwind.Register(Arch{})
	unwind.Register(Arch{esa: true})
}

// Arch is the s390x unwinder, or with esa the 31-bit s390 one. It is
// stateless; what it learns about an address is kept in the caller's
// unwind.Cache.
type Arch struct{ esa bool }

func (a Arch) Name() string       { return a.layout().name }
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return PC }
func (Arch) SPReg() int           { return SP }

// Step finds callee's caller: from the signal context where the code is
// a sigreturn trampoline, by CFI where the address has it, else (in an
// interrupted frame) by the link register r14, else by the back chain
// (code built with -mbackchain), else by scanning the stack for a return
// address. Each method records its trust in caller. callee.ExactPC, not
// the depth, tells frame 0 and signal-interrupted frames from callers.
func (a Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	l := a.layout()
	res, done, r, why := cfirow.StepKnown(cfiSteps{l}, as, cache, l.name, trampolineAt, PC, callee, caller)
	if done {
		return res, why
	}
	pc, _ := callee.Get(PC)
	if callee.ExactPC && l.stepLinkRegister(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if r.Kind == cfirow.KindNone && !callee.ExactPC && isOutermost(as, callee) {
		return unwind.StepEnd, nil
	}
	caller.Reset()
	if l.stepBackChain(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if l.stepScan(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (link register, back chain and stack scan found no caller)", pc, why)
}

// cfiSteps is what cfirow.StepKnown applies for a variant.
type cfiSteps struct{ l *layout }

func (s cfiSteps) StepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	return s.l.stepCFI(as, r, callee, caller)
}

func (s cfiSteps) StepTrampoline(as unwind.AddrSpace, k cfirow.Kind, callee, caller *unwind.Frame) error {
	return s.l.stepSigreturn(as, k == ruleRTSigreturn, callee, caller)
}

// isOutermost reports whether a caller frame without unwind info is the
// outermost one: it is in _start, the ELF entry point, or in
// thread_start, where glibc's clone starts a thread (older glibc gives
// neither CFI; both clear the back chain). gdb and eu-stack stop there
// too. Scanning above them would only find stale return addresses.
func isOutermost(as unwind.AddrSpace, f *unwind.Frame) bool {
	return stackscan.InFunction(as, f.LookupPC(PC), "_start", "thread_start")
}

// IsSignalFrame reports whether f is a signal trampoline: its CFI has
// the 'S' augmentation or its code is a sigreturn system call.
func (a Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(PC)
	r := a.layout().ruleFor(as, cache, f.LookupPC(PC), pc)
	return r.IsSignalFrame()
}

// Package ppc64 unwinds PowerPC Linux stacks: 64-bit little-endian
// (ELFv2, "ppc64le") and big-endian (ELFv1, "ppc64"), and 32-bit
// big-endian (the SysV ABI, "ppc"; layout.go says what differs): the
// register file in DWARF numbering, the core's register notes, DWARF CFI
// stepping with the return address in lr, the TOC pointer restored
// across calls between modules, the sigreturn trampolines of the
// kernel's vDSO and of qemu-user, and the back-chain, link-register and
// stack-scan fallbacks for code without CFI. It registers itself with package
// unwind under the three names; import it for its side effect.
package ppc64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

func init() {
	unwind.Register(Arch{})
	unwind.Register(Arch{bigEndian: true})
	unwind.Register(Arch{bigEndian: true, ppc32: true})
}

// Arch is the PowerPC unwinder. The two 64-bit ABIs unwind alike (the
// back chain at 0(r1), the lr save slot at 16 of the caller's frame, the
// same DWARF numbering); where the TOC save slot differs, the
// instruction that reloads r2 says which it is. The byte order comes from
// the address space, so bigEndian only names the arch. The 32-bit ABI
// has the same ideas with 4-byte words (ppc32: its layout).
type Arch struct{ bigEndian, ppc32 bool }

// Name is the arch name the corefile reports for EM_PPC64 and EM_PPC.
func (a Arch) Name() string {
	if a.ppc32 {
		return "ppc"
	}
	if a.bigEndian {
		return "ppc64"
	}
	return "ppc64le"
}

func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return PC }
func (Arch) SPReg() int           { return SP }

// Step finds callee's caller: from the signal context where the code is
// the rt_sigreturn trampoline, by CFI where the address has it, else (in
// an interrupted frame) by the link register, else by the back chain,
// else by scanning the stack for a return address. Each method records
// its trust in caller. callee.ExactPC, not the depth, tells frame 0 and
// signal-interrupted frames from callers.
func (a Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	l := a.layout()
	res, done, r, why := cfirow.StepKnown(cfiSteps{l}, as, cache, l.name, l.sigreturnKind, PC, callee, caller)
	if done {
		return res, why
	}
	pc, _ := callee.Get(PC)
	if callee.ExactPC && l.stepLinkRegister(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if r.Kind == cfirow.KindNone && !callee.ExactPC && l.isOutermost(as, callee) {
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
	return s.l.stepSigreturn(as, k, callee, caller)
}

// isOutermost reports whether a caller frame without unwind info is the
// outermost one: its back chain is zero, or leads to a frame whose lr
// save slot is zero (the ABI ends the chain with a null back chain; the
// first frame glibc's _start and clone build has no return address), or
// it is in _start, the ELF entry point. gdb stops at the entry function
// the same way. Scanning above either would only find stale return
// addresses.
func (l *layout) isOutermost(as unwind.AddrSpace, f *unwind.Frame) bool {
	if sp, ok := f.Get(SP); ok {
		bc, err := l.readWord(as, sp)
		if err == nil && bc == 0 {
			return true
		}
		if err == nil && bc > sp && bc-sp <= stackscan.MaxFrameSize {
			if ra, err := l.readWord(as, bc+l.lrSaveOff); err == nil && ra == 0 {
				return true
			}
		}
	}
	return stackscan.InFunction(as, f.LookupPC(PC), "_start", "._start")
}

// IsSignalFrame reports whether f is the signal trampoline: its CFI has
// the 'S' augmentation or its code is a sigreturn sequence.
func (a Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(PC)
	r := a.layout().ruleFor(as, cache, f.LookupPC(PC), pc)
	return r.IsSignalFrame()
}

// readInsn reads the 32-bit instruction at addr, in the target's byte
// order (Power instructions follow the data endianness).
func readInsn(as unwind.AddrSpace, addr uint64) (uint32, bool) {
	if addr%4 != 0 {
		return 0, false
	}
	v, err := cfirow.ReadSized(as, addr, 4)
	return uint32(v), err == nil
}

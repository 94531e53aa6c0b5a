// Package riscv64 unwinds 64-bit RISC-V Linux stacks: the register file
// in DWARF numbering, the core's register notes, DWARF CFI stepping with
// the return address in ra, the rt_sigreturn trampoline (the kernel's
// vDSO and qemu-user's), and the return-address-register, frame-pointer
// and stack-scan fallbacks for code without CFI. It registers itself with
// package unwind as "riscv64"; import it for its side effect.
package riscv64

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

func init() { unwind.Register(Arch{}) }

// Arch is the RISC-V 64 unwinder. It is stateless; what it learns about
// an address is kept in the caller's unwind.Cache.
type Arch struct{}

func (Arch) Name() string         { return "riscv64" }
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return PC }
func (Arch) SPReg() int           { return SP }

// Step finds callee's caller: from the signal context where the code is
// the rt_sigreturn trampoline, by CFI where the address has it, else by
// the function's prologue (prologue.go), else (in an interrupted frame)
// by the return address still in ra, else by the frame-pointer chain, else by scanning the stack for a return address.
// Each method records its trust in caller. callee.ExactPC, not the
// depth, tells frame 0 and signal-interrupted frames from callers.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, done, r, why := cfirow.StepKnown(cfiSteps{}, as, cache, "riscv64", sigreturnKind, PC, callee, caller)
	if done {
		return res, why
	}
	pc, _ := callee.Get(PC)
	if p, ok := readPrologue(as, callee.LookupPC(PC)); ok && (p.size > 0 || callee.ExactPC) && stepPrologue(as, p, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if callee.ExactPC && stepReturnAddressReg(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if r.Kind == cfirow.KindNone && !callee.ExactPC && isOutermost(as, callee) {
		return unwind.StepEnd, nil
	}
	caller.Reset()
	if stepFramePointer(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if stepScan(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (ra, frame pointer and stack scan found no caller)", pc, why)
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
// outermost one: its s0 is zero (glibc's _start and the kernel's initial
// state leave it so, and code built with frame pointers never has a zero
// fp), or it is in _start, the ELF entry point. gdb stops at the entry
// function the same way. Scanning above either would only find stale
// return addresses.
func isOutermost(as unwind.AddrSpace, f *unwind.Frame) bool {
	if fp, ok := f.Get(FP); ok && fp == 0 {
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

// setGRegs fills pc and x1–x31 from struct user_regs_struct (NT_PRSTATUS's
// pr_reg and the signal context's sc_regs have that layout: pc first,
// then x1..x31), and x0 as the constant zero. loc says where word i was.
func setGRegs(f *unwind.Frame, b []byte, order binary.ByteOrder, loc func(i int) unwind.SaveLoc) {
	f.Set(PC, order.Uint64(b), loc(0))
	for r := 1; r < 32; r++ {
		f.Set(r, order.Uint64(b[r*8:]), loc(r))
	}
	f.Set(X0, 0, unwind.SaveLoc{Kind: unwind.LocValue})
}

// readWord reads a 64-bit word of target memory.
func readWord(as unwind.AddrSpace, addr uint64) (uint64, error) { return cfirow.ReadSized(as, addr, 8) }

// readInsn reads the 32-bit little-endian instruction word at addr
// (RISC-V instructions are 2-byte aligned with the C extension).
func readInsn(as unwind.AddrSpace, addr uint64) (uint32, bool) {
	var b [4]byte
	if addr%2 != 0 || as.ReadMem(addr, b[:]) != nil {
		return 0, false
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24, true
}

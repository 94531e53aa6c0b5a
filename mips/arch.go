// Package mips unwinds MIPS Linux stacks of the o32 ABI (big- and
// little-endian, "mips" and "mipsel") and the n64 ABI ("mips64",
// "mips64el"): the register file in DWARF numbering, the core's register
// notes, DWARF CFI stepping with the return address in ra, the
// sigreturn trampolines, and for code without CFI the return address
// still in ra and the function's prologue (its stack adjustment and
// where it saved ra and s8), as gdb's mips_find_prologue reads them.
// It registers its four variants with package unwind; import it for
// its side effect.
package mips

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

func init() {
	for _, a := range []Arch{{big: true}, {}, {wide: true, big: true}, {wide: true}} {
		unwind.Register(a)
	}
}

// Arch is the MIPS unwinder of one ABI and byte order. It is stateless;
// what it learns about an address is kept in the caller's unwind.Cache.
type Arch struct {
	wide bool // n64: 8-byte registers and pointers (o32: 4)
	big  bool
}

func (a Arch) Name() string {
	n := "mips"
	if a.wide {
		n = "mips64"
	}
	if !a.big {
		n += "el"
	}
	return n
}

func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return PC }
func (Arch) SPReg() int           { return SP }

// word is the size of a register and of a pointer.
func (a Arch) word() int {
	if a.wide {
		return 8
	}
	return 4
}

// narrow keeps an o32 register's 32 bits of a 64-bit slot (the kernel
// saves o32 registers sign-extended).
func (a Arch) narrow(v uint64) uint64 {
	if a.wide {
		return v
	}
	return v & 0xffffffff
}

// Step finds callee's caller: from the signal context where the code is
// a sigreturn trampoline, by CFI where the address has it, else by the
// function's prologue, else (in an interrupted frame) by the return
// address still in ra. Each method records its trust in caller.
func (a Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, done, r, why := cfirow.StepKnown(steps{a}, as, cache, a.Name(), a.trampolineKind, PC, callee, caller)
	if done {
		return res, why
	}
	pc, _ := callee.Get(PC)
	if r.Kind == cfirow.KindNone && a.isOutermost(as, callee) {
		return unwind.StepEnd, nil
	}
	if p, ok := a.readPrologue(as, callee); ok && a.stepPrologue(as, p, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if callee.ExactPC && stackscan.StepLinkRegister(as, stackscan.LinkRegister{LR: RA, SP: SP, PC: PC, NGPR: 32, AfterCall: a.afterCall}, callee, caller) {
		return unwind.StepCaller, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (no prologue and no return address in ra)", pc, why)
}

// steps is what cfirow.StepKnown applies for this arch.
type steps struct{ a Arch }

func (s steps) StepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	return s.a.stepCFI(as, r, callee, caller)
}
func (s steps) StepTrampoline(as unwind.AddrSpace, k cfirow.Kind, callee, caller *unwind.Frame) error {
	return s.a.stepSigreturn(as, k, callee, caller)
}

// IsSignalFrame reports whether f is a signal trampoline: its CFI has
// the 'S' augmentation or its code is a sigreturn sequence.
func (a Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(PC)
	return a.ruleFor(as, cache, f.LookupPC(PC), pc).IsSignalFrame()
}

// readInsn reads the 32-bit instruction word at addr in the target's
// byte order.
func (a Arch) readInsn(as unwind.AddrSpace, addr uint64) (uint32, bool) {
	var b [4]byte
	if addr%4 != 0 || as.ReadMem(addr, b[:]) != nil {
		return 0, false
	}
	return as.ByteOrder().Uint32(b[:]), true
}

// readWord reads a register-sized word of target memory.
func (a Arch) readWord(as unwind.AddrSpace, addr uint64) (uint64, error) {
	return cfirow.ReadSized(as, addr, a.word())
}

// Package loong64 unwinds LoongArch64 Linux stacks: the register file in
// DWARF numbering, the core's register notes, DWARF CFI stepping with
// the return address in ra, the rt_sigreturn trampoline (the kernel's
// vDSO and qemu-user's), and the return-address-register and stack-scan
// fallbacks for code without CFI. It registers itself with package
// unwind as "loongarch64"; import it for its side effect.
package loong64

import (
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

func init() { unwind.Register(Arch{}) }

// Arch is the LoongArch64 unwinder. It is stateless; what it learns about
// an address is kept in the caller's unwind.Cache.
type Arch struct{}

func (Arch) Name() string         { return "loongarch64" }
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(uint64(r)) }
func (Arch) PCReg() int           { return PC }
func (Arch) SPReg() int           { return SP }

// Step finds callee's caller: from the signal context where the code is
// the rt_sigreturn trampoline, by CFI where the address has it, else (in
// an interrupted frame) by the return address still in ra, else by
// scanning the stack for a return address. Each method records its
// trust in caller.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, done, r, why := cfirow.StepKnown(cfiSteps{}, as, cache, "loongarch64", sigreturnKind, PC, callee, caller)
	if done {
		return res, why
	}
	pc, _ := callee.Get(PC)
	if callee.ExactPC && stackscan.StepLinkRegister(as, linkRegister, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if r.Kind == cfirow.KindNone && !callee.ExactPC && stackscan.InFunction(as, callee.LookupPC(PC), "_start") {
		return unwind.StepEnd, nil
	}
	if stepScan(as, callee, caller) {
		return unwind.StepCaller, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (ra and stack scan found no caller)", pc, why)
}

// linkRegister is ra, for stackscan.StepLinkRegister.
var linkRegister = stackscan.LinkRegister{LR: RA, SP: SP, PC: PC, NGPR: 32, AfterCall: afterCall}

// cfiSteps is what cfirow.StepKnown applies for this arch.
type cfiSteps struct{}

func (cfiSteps) StepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	return stepCFI(as, r, callee, caller)
}
func (cfiSteps) StepTrampoline(as unwind.AddrSpace, _ cfirow.Kind, callee, caller *unwind.Frame) error {
	return stepSigreturn(as, callee, caller)
}

// IsSignalFrame reports whether f is the signal trampoline: its CFI has
// the 'S' augmentation or its code is the rt_sigreturn sequence.
func (Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	pc, _ := f.Get(PC)
	return ruleFor(as, cache, f.LookupPC(PC), pc).IsSignalFrame()
}

// DynListAddr is unwind.DynListArch. Debian has no LoongArch C compiler
// to check a decoder of libunwind's accessor against, so its code is not
// decoded.
func (Arch) DynListAddr(as unwind.AddrSpace, f *elf.File, bias, fn uint64) (uint64, error) {
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: not decoded for loongarch64: %w", fn, unwind.ErrNoInfo)
}

// setGRegs fills r0–r31 from 32 words (NT_PRSTATUS's and the signal
// context's order), r0 as the constant zero. loc says where word i was.
func setGRegs(f *unwind.Frame, b []byte, order binary.ByteOrder, loc func(i int) unwind.SaveLoc) {
	for r := 1; r < 32; r++ {
		f.Set(r, order.Uint64(b[r*8:]), loc(r))
	}
	f.Set(Zero, 0, unwind.SaveLoc{Kind: unwind.LocValue})
}

// readInsn reads the 32-bit little-endian instruction word at addr.
func readInsn(as unwind.AddrSpace, addr uint64) (uint32, bool) {
	var b [4]byte
	if addr%4 != 0 || as.ReadMem(addr, b[:]) != nil {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[:]), true
}

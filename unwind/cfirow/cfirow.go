// Package cfirow applies one DWARF CFI row to a frame: the step every
// arch that unwinds by CFI shares. The arch says which registers a call
// preserves, which one is the stack pointer and how it names registers;
// what becomes of the return-address column (the caller's PC, pointer
// authentication, signal frames) stays the arch's.
package cfirow

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

// Regs is what applying a row needs to know of an arch's register file.
type Regs struct {
	// N is the number of registers in a frame (unwind.Arch.NumRegs).
	N int
	// SP is the stack pointer: when the row says nothing about it, the
	// caller's value is the CFA.
	SP int
	// Preserved reports whether a register the row says nothing about
	// keeps the callee's value in the caller (callee-saved registers,
	// and on arches with a link register the return-address column).
	Preserved func(r int) bool
	// Name names register r in messages.
	Name func(r uint64) string
	// Word is the size of a saved register and of an address in CFI
	// expressions (8 on every 64-bit arch).
	Word int
}

// Apply computes the CFA of row for callee, then every register of
// caller the row (or Regs.Preserved) defines. raCol is the CIE's
// return-address column: failing to recover it is an error, other lost
// registers only stay unknown. raDefined is false when the return
// address is undefined or unknown: the outermost frame. Apply sets
// caller's CFA (for an outermost frame too), no trust or PC; the arch
// does.
func Apply(as unwind.AddrSpace, row *cfi.Row, raCol uint64, regs Regs, callee, caller *unwind.Frame) (cfa uint64, raDefined bool, err error) {
	ctx := &cfi.ExprContext{
		Order:   as.ByteOrder(),
		PtrSize: regs.Word,
		ReadMem: func(addr uint64, size int) (uint64, error) { return ReadSized(as, addr, size) },
		Reg: func(reg uint64) (uint64, error) {
			if v, ok := callee.Get(int(reg)); ok && reg < uint64(regs.N) {
				return v, nil
			}
			return 0, fmt.Errorf("%w: %s", unwind.ErrNoReg, regs.Name(reg))
		},
	}
	if row.CFA.Expr != nil {
		v, err := cfi.Eval(row.CFA.Expr, ctx)
		if err != nil {
			return 0, false, fmt.Errorf("CFA expression: %w", err)
		}
		cfa = v
	} else {
		base, ok := callee.Get(int(row.CFA.Reg))
		if !ok || row.CFA.Reg >= uint64(regs.N) {
			return 0, false, fmt.Errorf("CFA base %s: %w", regs.Name(row.CFA.Reg), unwind.ErrNoReg)
		}
		cfa = truncate(uint64(int64(base)+row.CFA.Offset), regs.Word)
	}
	ctx.CFA, ctx.HasCFA = cfa, true
	// Set even when the row ends the walk (an undefined return address):
	// a signal handler that hides its return (unwind.FrameSignalHandler)
	// has the kernel's signal frame at its CFA.
	caller.CFA, caller.HasCFA = cfa, true
	for reg := 0; reg < regs.N; reg++ {
		v, loc, ok, err := applyRule(as, ctx, row.Rule(uint64(reg)), reg, cfa, regs, callee)
		if err != nil {
			if uint64(reg) == raCol {
				return cfa, false, fmt.Errorf("return address: %w", err)
			}
			continue // a lost callee-saved register does not stop the walk
		}
		if ok {
			caller.Set(reg, v, loc)
			if uint64(reg) == raCol {
				raDefined = true
			}
		}
	}
	return cfa, raDefined, nil
}

// applyRule computes one register of the caller. ok is false when the
// register is not known in the caller.
func applyRule(as unwind.AddrSpace, ctx *cfi.ExprContext, rl cfi.Rule, reg int, cfa uint64, regs Regs, callee *unwind.Frame) (uint64, unwind.SaveLoc, bool, error) {
	switch rl.Kind {
	case cfi.Unspecified:
		if reg == regs.SP {
			return cfa, unwind.SaveLoc{Kind: unwind.LocValue}, true, nil
		}
		if !regs.Preserved(reg) {
			return 0, unwind.SaveLoc{}, false, nil
		}
		fallthrough
	case cfi.SameValue:
		v, ok := callee.Get(reg)
		return v, callee.Locs[reg], ok, nil
	case cfi.Undefined:
		return 0, unwind.SaveLoc{}, false, nil
	case cfi.Offset:
		addr := truncate(uint64(int64(cfa)+rl.Offset), regs.Word)
		v, err := ReadSized(as, addr, regs.Word)
		return v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}, err == nil, err
	case cfi.ValOffset:
		return truncate(uint64(int64(cfa)+rl.Offset), regs.Word), unwind.SaveLoc{Kind: unwind.LocValue}, true, nil
	case cfi.Register:
		v, ok := callee.Get(int(rl.Reg))
		if !ok {
			return 0, unwind.SaveLoc{}, false, nil
		}
		return v, unwind.SaveLoc{Kind: unwind.LocReg, Reg: int(rl.Reg)}, true, nil
	case cfi.Expression:
		addr, err := cfi.Eval(rl.Expr, ctx, cfa)
		if err != nil {
			return 0, unwind.SaveLoc{}, false, err
		}
		v, err := ReadSized(as, addr, regs.Word)
		return v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}, err == nil, err
	case cfi.ValExpression:
		v, err := cfi.Eval(rl.Expr, ctx, cfa)
		return v, unwind.SaveLoc{Kind: unwind.LocValue}, err == nil, err
	}
	return 0, unwind.SaveLoc{}, false, nil
}

// ReadSized reads a 1-, 2-, 4- or 8-byte target value in the target's
// byte order (DW_OP_deref_size, and saved registers).
func ReadSized(as unwind.AddrSpace, addr uint64, size int) (uint64, error) {
	if size <= 0 || size > 8 {
		return 0, fmt.Errorf("deref of %d bytes: %w", size, unwind.ErrBadFrame)
	}
	var b [8]byte
	if err := as.ReadMem(addr, b[:size]); err != nil {
		return 0, err
	}
	return DecodeSized(as.ByteOrder(), b[:size]), nil
}

// DecodeSized decodes all of b, 1 to 8 bytes, as one target value in
// byte order: a word of memory already read, or of a note or a signal
// context, whose size (4 or 8) is the target's.
func DecodeSized(order binary.ByteOrder, b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(order.Uint16(b))
	case 4:
		return uint64(order.Uint32(b))
	case 8:
		return order.Uint64(b)
	}
	var v uint64 // 3, 5, 6, 7 bytes
	for i := range b {
		k := i
		if order.Uint16([]byte{1, 0}) == 1 { // little-endian: least significant byte first
			k = len(b) - 1 - i
		}
		v = v<<8 | uint64(b[k])
	}
	return v
}

// truncate wraps an address computed in 64 bits to the target's width: a
// 32-bit CFA plus a negative offset must not leave the address space.
func truncate(v uint64, word int) uint64 {
	if word == 4 {
		return v & 0xffffffff
	}
	return v
}

// Step applies row for arches whose caller's PC is the value of the
// return-address column (x86-64, i386): Apply, then the caller's PC from
// raCol, its stack pointer the CFA unless the row says otherwise, its
// CFA and trust cfi. An undefined return address is the outermost frame
// (_start, clone): StepEnd and no error.
func Step(as unwind.AddrSpace, row *cfi.Row, raCol uint64, regs Regs, pc int, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	cfa, raDefined, err := Apply(as, row, raCol, regs, callee, caller)
	if err != nil {
		return unwind.StepEnd, err
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	if raCol != uint64(pc) {
		v, _ := caller.Get(int(raCol))
		caller.Set(pc, v, caller.Locs[raCol])
	}
	if _, ok := caller.Get(regs.SP); !ok {
		caller.Set(regs.SP, cfa, unwind.SaveLoc{Kind: unwind.LocValue})
	}
	SetCaller(caller, cfa, false)
	return unwind.StepCaller, nil
}

// SetCaller records what a CFI step found of caller: its CFA, and its
// trust. The caller of a signal trampoline (signal: the CIE's 'S'
// augmentation) was interrupted, not calling: its PC is exact, and its
// registers come from the signal context.
func SetCaller(caller *unwind.Frame, cfa uint64, signal bool) {
	caller.CFA, caller.HasCFA = cfa, true
	caller.Trust = unwind.TrustCFI
	if signal {
		caller.ExactPC = true
		caller.Trust = unwind.TrustContext
	}
}

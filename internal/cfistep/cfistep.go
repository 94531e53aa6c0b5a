// Package cfistep applies a DWARF CFI row to a frame: the step every
// architecture that unwinds by .eh_frame or .debug_frame shares. What the
// row leaves open (which registers a call preserves, the pointer size,
// which register is the stack pointer) comes from the architecture's ABI
// value. Finding the row, signal trampolines and fallbacks stay in the
// arch packages.
package cfistep

import (
	"fmt"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

// ABI is what an architecture's psABI says about registers CFI does not
// mention.
type ABI struct {
	NumRegs int
	PC, SP  int // the program counter and the stack pointer
	PtrSize int // 4 or 8: the size of a saved register slot
	// CalleeSaved are the registers a call preserves: with no rule in the
	// row, the caller's value is the callee's. Registers not listed are
	// unknown in the caller (a call clobbers them).
	CalleeSaved []bool
	RegName     func(r uint64) string
}

// Apply computes caller from callee with row, whose return address is in
// column raCol: the CFA first, then every register's rule relative to
// it. The caller's stack pointer is the CFA unless the row says
// otherwise, its PC the return-address column. An undefined return
// address is the outermost frame (_start, clone): Apply returns
// StepEnd and no error. On success caller has trust cfi and its CFA.
func Apply(as unwind.AddrSpace, abi *ABI, row *cfi.Row, raCol uint64, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	ctx := &cfi.ExprContext{
		Order:   as.ByteOrder(),
		PtrSize: abi.PtrSize,
		ReadMem: func(addr uint64, size int) (uint64, error) { return ReadSized(as, addr, size) },
		Reg: func(reg uint64) (uint64, error) {
			if v, ok := callee.Get(int(reg)); ok {
				return v, nil
			}
			return 0, fmt.Errorf("%w: %s", unwind.ErrNoReg, abi.RegName(reg))
		},
	}
	var cfa uint64
	if row.CFA.Expr != nil {
		v, err := cfi.Eval(row.CFA.Expr, ctx)
		if err != nil {
			return unwind.StepEnd, fmt.Errorf("CFA expression: %w", err)
		}
		cfa = v
	} else {
		base, ok := callee.Get(int(row.CFA.Reg))
		if !ok {
			return unwind.StepEnd, fmt.Errorf("CFA base %s: %w", abi.RegName(row.CFA.Reg), unwind.ErrNoReg)
		}
		cfa = truncate(uint64(int64(base)+row.CFA.Offset), abi.PtrSize)
	}
	ctx.CFA, ctx.HasCFA = cfa, true
	raDefined := false
	for reg := 0; reg < abi.NumRegs; reg++ {
		v, loc, ok, err := applyRule(as, abi, ctx, row.Rule(uint64(reg)), reg, cfa, callee)
		if err != nil {
			if uint64(reg) == raCol {
				return unwind.StepEnd, fmt.Errorf("return address: %w", err)
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
	if !raDefined {
		return unwind.StepEnd, nil
	}
	if raCol != uint64(abi.PC) {
		v, _ := caller.Get(int(raCol))
		caller.Set(abi.PC, v, caller.Locs[raCol])
	}
	if _, ok := caller.Get(abi.SP); !ok {
		caller.Set(abi.SP, cfa, unwind.SaveLoc{Kind: unwind.LocValue})
	}
	caller.CFA, caller.HasCFA = cfa, true
	caller.Trust = unwind.TrustCFI
	return unwind.StepCaller, nil
}

// applyRule computes one register of the caller. ok is false when the
// register is not known in the caller.
func applyRule(as unwind.AddrSpace, abi *ABI, ctx *cfi.ExprContext, rl cfi.Rule, reg int, cfa uint64, callee *unwind.Frame) (uint64, unwind.SaveLoc, bool, error) {
	switch rl.Kind {
	case cfi.Unspecified:
		if reg == abi.SP {
			return cfa, unwind.SaveLoc{Kind: unwind.LocValue}, true, nil
		}
		if reg >= len(abi.CalleeSaved) || !abi.CalleeSaved[reg] {
			return 0, unwind.SaveLoc{}, false, nil
		}
		fallthrough
	case cfi.SameValue:
		v, ok := callee.Get(reg)
		return v, callee.Locs[reg], ok, nil
	case cfi.Undefined:
		return 0, unwind.SaveLoc{}, false, nil
	case cfi.Offset:
		addr := truncate(uint64(int64(cfa)+rl.Offset), abi.PtrSize)
		v, err := ReadSized(as, addr, abi.PtrSize)
		return v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}, err == nil, err
	case cfi.ValOffset:
		return truncate(uint64(int64(cfa)+rl.Offset), abi.PtrSize), unwind.SaveLoc{Kind: unwind.LocValue}, true, nil
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
		v, err := ReadSized(as, addr, abi.PtrSize)
		return v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}, err == nil, err
	case cfi.ValExpression:
		v, err := cfi.Eval(rl.Expr, ctx, cfa)
		return v, unwind.SaveLoc{Kind: unwind.LocValue}, err == nil, err
	}
	return 0, unwind.SaveLoc{}, false, nil
}

// ReadSized reads a target value of 1 to 8 bytes in the target's byte
// order, zero-extended (a saved register slot, DW_OP_deref_size).
func ReadSized(as unwind.AddrSpace, addr uint64, size int) (uint64, error) {
	if size <= 0 || size > 8 {
		return 0, fmt.Errorf("read of %d bytes: %w", size, unwind.ErrBadFrame)
	}
	var b [8]byte
	if err := as.ReadMem(addr, b[:size]); err != nil {
		return 0, err
	}
	big := as.ByteOrder().Uint16([]byte{0, 1}) == 1
	var v uint64
	for i := 0; i < size; i++ {
		if big {
			v = v<<8 | uint64(b[i])
		} else {
			v = v<<8 | uint64(b[size-1-i])
		}
	}
	return v, nil
}

// truncate wraps an address computed in 64 bits to the target's width: a
// 32-bit CFA plus a negative offset must not leave the address space.
func truncate(v uint64, ptrSize int) uint64 {
	if ptrSize == 4 {
		return v & 0xffffffff
	}
	return v
}

package x86_64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

// stepCFI applies a CFI row: the CFA first, then every register's rule
// relative to it. The caller's rsp is the CFA (psABI), its rip is the
// return-address column; an undefined return address marks the
// outermost frame (_start, clone).
func stepCFI(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	ctx := &cfi.ExprContext{
		Order:   as.ByteOrder(),
		PtrSize: 8,
		ReadMem: func(addr uint64, size int) (uint64, error) { return readSized(as, addr, size) },
		Reg: func(reg uint64) (uint64, error) {
			if v, ok := callee.Get(int(reg)); ok {
				return v, nil
			}
			return 0, fmt.Errorf("%w: %s", unwind.ErrNoReg, RegName(reg))
		},
	}
	var cfa uint64
	if r.row.CFA.Expr != nil {
		v, err := cfi.Eval(r.row.CFA.Expr, ctx)
		if err != nil {
			return unwind.StepEnd, fmt.Errorf("CFA expression: %w", err)
		}
		cfa = v
	} else {
		base, ok := callee.Get(int(r.row.CFA.Reg))
		if !ok {
			return unwind.StepEnd, fmt.Errorf("CFA base %s: %w", RegName(r.row.CFA.Reg), unwind.ErrNoReg)
		}
		cfa = uint64(int64(base) + r.row.CFA.Offset)
	}
	ctx.CFA, ctx.HasCFA = cfa, true
	raDefined := false
	for reg := 0; reg < NumRegs; reg++ {
		rl := cfi.Rule{Kind: cfi.Unspecified}
		if reg < len(r.row.Regs) {
			rl = r.row.Regs[reg]
		}
		v, loc, ok, err := applyRule(as, ctx, rl, reg, cfa, callee)
		if err != nil {
			if uint64(reg) == r.raCol {
				return unwind.StepEnd, fmt.Errorf("return address: %w", err)
			}
			continue // a lost callee-saved register does not stop the walk
		}
		if ok {
			caller.Set(reg, v, loc)
			if uint64(reg) == r.raCol {
				raDefined = true
			}
		}
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	if r.raCol != RIP {
		v, _ := caller.Get(int(r.raCol))
		caller.Set(RIP, v, caller.Locs[r.raCol])
	}
	if _, ok := caller.Get(RSP); !ok {
		caller.Set(RSP, cfa, unwind.SaveLoc{Kind: unwind.LocValue})
	}
	caller.CFA, caller.HasCFA = cfa, true
	caller.Trust = unwind.TrustCFI
	if r.trust != unwind.TrustNone {
		caller.Trust = r.trust
	}
	if r.signal {
		// The caller of a signal trampoline was interrupted, not calling:
		// its PC is exact, and its registers come from the signal context.
		caller.ExactPC = true
		caller.Trust = unwind.TrustContext
	}
	return unwind.StepCaller, nil
}

// applyRule computes one register of the caller. ok is false when the
// register is not known in the caller.
func applyRule(as unwind.AddrSpace, ctx *cfi.ExprContext, rl cfi.Rule, reg int, cfa uint64, callee *unwind.Frame) (uint64, unwind.SaveLoc, bool, error) {
	switch rl.Kind {
	case cfi.Unspecified:
		if reg == RSP {
			return cfa, unwind.SaveLoc{Kind: unwind.LocValue}, true, nil
		}
		if !calleeSaved[reg] {
			return 0, unwind.SaveLoc{}, false, nil
		}
		fallthrough
	case cfi.SameValue:
		v, ok := callee.Get(reg)
		return v, callee.Locs[reg], ok, nil
	case cfi.Undefined:
		return 0, unwind.SaveLoc{}, false, nil
	case cfi.Offset:
		addr := uint64(int64(cfa) + rl.Offset)
		v, err := readWord(as, addr)
		return v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}, err == nil, err
	case cfi.ValOffset:
		return uint64(int64(cfa) + rl.Offset), unwind.SaveLoc{Kind: unwind.LocValue}, true, nil
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
		v, err := readWord(as, addr)
		return v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}, err == nil, err
	case cfi.ValExpression:
		v, err := cfi.Eval(rl.Expr, ctx, cfa)
		return v, unwind.SaveLoc{Kind: unwind.LocValue}, err == nil, err
	}
	return 0, unwind.SaveLoc{}, false, nil
}

// readSized reads a 1-, 2-, 4- or 8-byte target value (DW_OP_deref_size).
func readSized(as unwind.AddrSpace, addr uint64, size int) (uint64, error) {
	if size <= 0 || size > 8 {
		return 0, fmt.Errorf("deref of %d bytes: %w", size, unwind.ErrBadFrame)
	}
	var b [8]byte
	if err := as.ReadMem(addr, b[:size]); err != nil {
		return 0, err
	}
	var v uint64
	for i := size - 1; i >= 0; i-- { // little-endian
		v = v<<8 | uint64(b[i])
	}
	return v, nil
}

package x86_64

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

// stepCFI applies a CFI rule: its compact form, or the full row.
func stepCFI(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	if r.full != nil {
		return stepFull(as, r.full, r, callee, caller)
	}
	cs, ok1 := regFile(callee)
	ps, ok2 := regFile(caller)
	if !ok1 || !ok2 {
		return unwind.StepEnd, fmt.Errorf("%w: frames of %d and %d registers, want %d", unwind.ErrBadFrame, len(callee.Regs), len(caller.Regs), NumRegs)
	}
	if !cs.valid[r.cfaReg] {
		return unwind.StepEnd, fmt.Errorf("CFA base %s: %w", RegName(uint64(r.cfaReg)), unwind.ErrNoReg)
	}
	cfa := uint64(int64(cs.regs[r.cfaReg]) + int64(r.cfaOff))
	m := slotReader{as: as, buf: caller.Scratch()}
	m.fill(uint64(int64(cfa)+int64(r.lo)), int(r.span))
	for i := range savedRegs { // not range over the array: that copies it
		reg := savedRegs[i]
		if r.saved&(1<<i) == 0 {
			if cs.valid[reg] {
				ps.regs[reg], ps.valid[reg], ps.locs[reg] = cs.regs[reg], true, cs.locs[reg]
			}
			continue
		}
		addr := uint64(int64(cfa) + int64(r.slot[i]))
		if v, err := m.word(addr); err == nil {
			ps.regs[reg], ps.valid[reg], ps.locs[reg] = v, true, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}
		} // a lost callee-saved register does not stop the walk
	}
	raAddr := uint64(int64(cfa) + int64(r.raOff))
	ra, err := m.word(raAddr)
	if err != nil {
		return unwind.StepEnd, fmt.Errorf("return address: %w", err)
	}
	ps.regs[RIP], ps.valid[RIP], ps.locs[RIP] = ra, true, unwind.SaveLoc{Kind: unwind.LocMem, Addr: raAddr}
	ps.regs[RSP], ps.valid[RSP], ps.locs[RSP] = cfa, true, unwind.SaveLoc{Kind: unwind.LocValue}
	finishCFI(r, cfa, caller)
	return unwind.StepCaller, nil
}

// regs is a frame's register file as arrays: indexing them needs no
// check of three slice lengths per register.
type regs struct {
	regs  *[NumRegs]uint64
	valid *[NumRegs]bool
	locs  *[NumRegs]unwind.SaveLoc
}

// regFile returns f's register file; ok is false when f does not have
// NumRegs registers (the Arch contract says it does).
func regFile(f *unwind.Frame) (r regs, ok bool) {
	if len(f.Regs) != NumRegs || len(f.Valid) != NumRegs || len(f.Locs) != NumRegs {
		return r, false
	}
	return regs{(*[NumRegs]uint64)(f.Regs), (*[NumRegs]bool)(f.Valid), (*[NumRegs]unwind.SaveLoc)(f.Locs)}, true
}

// stepFull applies a whole CFI row: the CFA first, then every register's
// rule relative to it. The caller's rsp is the CFA (psABI), its rip is
// the return-address column; an undefined return address marks the
// outermost frame (_start, clone).
func stepFull(as unwind.AddrSpace, f *fullRule, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	var ctx *cfi.ExprContext
	if f.hasExpr {
		ctx = exprContext(as, callee)
	}
	var cfa uint64
	if f.row.CFA.Expr != nil {
		v, err := cfi.Eval(f.row.CFA.Expr, ctx)
		if err != nil {
			return unwind.StepEnd, fmt.Errorf("CFA expression: %w", err)
		}
		cfa = v
	} else {
		base, ok := callee.Get(int(f.row.CFA.Reg))
		if !ok {
			return unwind.StepEnd, fmt.Errorf("CFA base %s: %w", RegName(f.row.CFA.Reg), unwind.ErrNoReg)
		}
		cfa = uint64(int64(base) + f.row.CFA.Offset)
	}
	if ctx != nil {
		ctx.CFA, ctx.HasCFA = cfa, true
	}
	m := slotReader{as: as, buf: caller.Scratch()}
	raDefined := false
	for reg := 0; reg < NumRegs; reg++ {
		rl := cfi.Rule{Kind: cfi.Unspecified}
		if reg < len(f.row.Regs) {
			rl = f.row.Regs[reg]
		}
		v, loc, ok, err := applyRule(&m, ctx, rl, reg, cfa, callee)
		if err != nil {
			if uint64(reg) == f.raCol {
				return unwind.StepEnd, fmt.Errorf("return address: %w", err)
			}
			continue // a lost callee-saved register does not stop the walk
		}
		if ok {
			caller.Set(reg, v, loc)
			if uint64(reg) == f.raCol {
				raDefined = true
			}
		}
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	if f.raCol != RIP {
		v, _ := caller.Get(int(f.raCol))
		caller.Set(RIP, v, caller.Locs[f.raCol])
	}
	if _, ok := caller.Get(RSP); !ok {
		caller.Set(RSP, cfa, unwind.SaveLoc{Kind: unwind.LocValue})
	}
	finishCFI(r, cfa, caller)
	return unwind.StepCaller, nil
}

// finishCFI records what every CFI step says of the caller frame.
func finishCFI(r *rule, cfa uint64, caller *unwind.Frame) {
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
}

// exprContext is what DWARF expressions of a row may read: target memory
// and the callee's registers. Only rows with expressions build one (its
// closures allocate).
func exprContext(as unwind.AddrSpace, callee *unwind.Frame) *cfi.ExprContext {
	return &cfi.ExprContext{
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
}

// slotReader reads the words a step needs into the caller frame's
// scratch buffer (a local buffer would escape through the AddrSpace
// interface: an allocation per read). fill reads a block of save slots at
// once; word serves from it, or reads one word when the block is not
// there. Words are little-endian, as x86-64 is (readSized assumes it
// too), not in the address space's ByteOrder: comparing interfaces per
// word costs more than the rest of the read.
type slotReader struct {
	as   unwind.AddrSpace
	buf  []byte
	base uint64 // target address of buf[0] when n > 0
	n    int    // bytes of buf holding target memory from base
}

// fill reads n bytes at addr into the buffer, if they fit and are all
// readable; otherwise word reads word by word (one unreadable slot must
// not lose the others).
func (m *slotReader) fill(addr uint64, n int) {
	m.n = 0
	if n <= len(m.buf) && m.as.ReadMem(addr, m.buf[:n]) == nil {
		m.base, m.n = addr, n
	}
}

// word returns the target word at addr.
func (m *slotReader) word(addr uint64) (uint64, error) {
	d := addr - m.base
	if m.n < 8 || d > uint64(m.n-8) {
		m.n, d = 0, 0 // the block is overwritten
		if err := m.as.ReadMem(addr, m.buf[:8]); err != nil {
			return 0, err
		}
	}
	return binary.LittleEndian.Uint64(m.buf[d:]), nil
}

// applyRule computes one register of the caller. ok is false when the
// register is not known in the caller.
func applyRule(m *slotReader, ctx *cfi.ExprContext, rl cfi.Rule, reg int, cfa uint64, callee *unwind.Frame) (uint64, unwind.SaveLoc, bool, error) {
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
		v, err := m.word(addr)
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
		v, err := m.word(addr)
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

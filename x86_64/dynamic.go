package x86_64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

// Dynamic unwind info on x86-64 (the model, the registration list and the
// replay of the regions and operations, unwind.ReplayDynamic, are package
// unwind's):
//
//   - An instruction index is a byte offset: a region's InsnCount is its
//     length in bytes, an operation's When the offset in its region of
//     the instruction whose effect it describes. The effect is in place
//     for addresses after that instruction's first byte.
//   - Operations name DWARF registers rax..r15 (0..15) and rip (16);
//     libunwind's UNW_X86_64_* numbers are the same.
//   - The entry state is the call's: CFA = rsp+8, return address at
//     CFA-8, every callee-saved register unchanged.
//   - ADD rsp,v: the stack pointer moved by v (push: -8, sub $n: -n). ADD
//     on the register the CFA is based on moves that base. ADD on another
//     register r: the caller's r is the current r minus the sum.
//   - SAVE_REG rsp,d: d now holds rsp (mov %rsp,%rbp): the CFA is based on
//     d. SAVE_REG r,d otherwise: the caller's r is in d.
//   - SPILL_SP_REL r,off: the caller's r is at rsp+off, rsp as it is after
//     the operation's instruction. SPILL_FP_REL r,off: at rbp+off.
//   - POP_FRAMES n (n ≥ 1): the epilogue has undone the frame; the entry
//     state holds again. LABEL_STATE / COPY_STATE save and restore the
//     whole state by label (at most 64 labels). ALIAS addr: unwind as
//     the code at addr plus the target's offset in the ALIAS's region,
//     clipped to the region's length (chains of at most 4).
//   - Qualifying predicates are ignored: x86-64 does not predicate.
//
// The result is a CFI row, so stepping shares the CFI path; the frame's
// trust is "dynamic". TABLE and REMOTE_TABLE data is an .eh_frame_hdr
// binary-search table whose FDEs live in target memory (dynamic_table.go).

// errDynOp: an operation that cannot apply (package unwind's sentinel,
// which the replay's own errors wrap too).
var errDynOp = unwind.ErrDynOp

// dynState is the unwind state the operations build.
type dynState struct {
	cfaReg  int
	cfaOff  int64 // CFA = cfaReg + cfaOff
	spDepth int64 // rsp = CFA - spDepth
	regs    [NumRegs]cfi.Rule
	delta   [NumRegs]int64 // ADD on registers that are not saved
}

func entryState() dynState {
	s := dynState{cfaReg: RSP, cfaOff: 8, spDepth: 8}
	s.regs[RIP] = cfi.Rule{Kind: cfi.Offset, Offset: -8}
	return s
}

// dynamicRule is the rule at lookup address lpc for a ProcInfo of one of
// the dynamic formats.
func dynamicRule(as unwind.AddrSpace, cache *unwind.Cache, pi *unwind.ProcInfo, lpc uint64, depth int) (*rule, error) {
	d, ok := pi.Info.(*unwind.DynInfo)
	if !ok {
		return nil, fmt.Errorf("dynamic proc info for %#x carries %T", lpc, pi.Info)
	}
	if d.Err != nil {
		return nil, d.Err
	}
	switch d.Format {
	case unwind.DynFormatDynamic:
		row, alias, err := dynamicRow(d, lpc)
		if err != nil {
			return nil, err
		}
		if alias != 0 {
			api, err := unwind.FollowAlias(as, cache, lpc, alias, depth)
			if err != nil {
				return nil, err
			}
			return infoRule(as, cache, api, alias, depth+1)
		}
		r := cfiRule(row, false, RIP, unwind.TrustDynamic)
		return &r, nil
	case unwind.DynFormatTable, unwind.DynFormatRemoteTable:
		fde, err := tableFDE(as, d, lpc)
		if err != nil {
			return nil, err
		}
		row, err := fde.RowAt(lpc - d.LoadOffset)
		if err != nil {
			return nil, fmt.Errorf("dynamic table FDE at %#x: %w", lpc, err)
		}
		r := cfiRule(row, fde.CIE.Signal, fde.CIE.RAColumn, unwind.TrustDynamic)
		return &r, nil
	}
	return nil, fmt.Errorf("dynamic info format %v at %#x: %w", d.Format, lpc, unwind.ErrNoInfo)
}

// infoRule is the rule for lpc from any ProcInfo: CFI or dynamic.
func infoRule(as unwind.AddrSpace, cache *unwind.Cache, pi *unwind.ProcInfo, lpc uint64, depth int) (*rule, error) {
	switch pi.Format {
	case unwind.FormatCFI:
		fde, ok := pi.Info.(*cfi.FDE)
		if !ok {
			return nil, errNoCFI
		}
		row, err := fde.RowAt(lpc - pi.Bias)
		if err != nil {
			return nil, err
		}
		r := cfiRule(row, fde.CIE.Signal, fde.CIE.RAColumn, unwind.TrustNone)
		return &r, nil
	case unwind.FormatDynamic, unwind.FormatTable, unwind.FormatRemoteTable:
		return dynamicRule(as, cache, pi, lpc, depth)
	}
	return nil, fmt.Errorf("pc %#x: unwind info format %v: %w", lpc, pi.Format, errNoCFI)
}

// dynamicRow applies a DYNAMIC procedure's operations up to lpc. A
// non-zero alias says to unwind as that address instead.
func dynamicRow(d *unwind.DynInfo, lpc uint64) (row cfi.Row, alias uint64, err error) {
	if d.Proc == nil || !d.Covers(lpc) {
		return row, 0, fmt.Errorf("dynamic procedure does not cover %#x: %w", lpc, unwind.ErrNoInfo)
	}
	s := entryState()
	alias, err = unwind.ReplayDynamic(dynArch{}, d, &s, int64(lpc-d.StartIP), int64(d.EndIP-d.StartIP))
	if err != nil {
		return row, 0, fmt.Errorf("procedure %q at %#x: %w", d.Name(), lpc, err)
	}
	if alias != 0 {
		return row, alias, nil
	}
	return s.row(), 0, nil
}

// dynArch is x86-64's side of the replay: an instruction index is a byte
// offset, the state a plain value.
type dynArch struct{ unwind.PlainDynState[dynState] }

func (dynArch) InsnBytes(n int64) uint64 { return uint64(n) }

func (dynArch) Apply(s *dynState, op unwind.DynOp, _ int64) error { return s.apply(op) }

func (s *dynState) apply(op unwind.DynOp) error {
	reg := int(op.Reg)
	val := int64(op.Val)
	needReg := func() error {
		if reg < 0 || reg >= NumRegs {
			return fmt.Errorf("%w: %v names register %d", errDynOp, op, reg)
		}
		return nil
	}
	switch op.Tag {
	case unwind.DynSaveReg:
		if err := needReg(); err != nil {
			return err
		}
		dst := int(op.Val)
		if op.Val >= uint64(RIP) {
			return fmt.Errorf("%w: %v saves into register %d", errDynOp, op, op.Val)
		}
		if reg == RSP {
			if s.cfaReg == RSP {
				s.cfaReg, s.cfaOff = dst, s.spDepth
			}
			return nil
		}
		s.regs[reg] = cfi.Rule{Kind: cfi.Register, Reg: uint64(dst)}
	case unwind.DynSpillSPRel:
		if err := needReg(); err != nil {
			return err
		}
		s.regs[reg] = cfi.Rule{Kind: cfi.Offset, Offset: val - s.spDepth}
	case unwind.DynSpillFPRel:
		if err := needReg(); err != nil {
			return err
		}
		if s.cfaReg == RBP {
			s.regs[reg] = cfi.Rule{Kind: cfi.Offset, Offset: val - s.cfaOff}
		} else {
			s.regs[reg] = cfi.Rule{Kind: cfi.Expression, Expr: bregExpr(RBP, val)}
		}
	case unwind.DynAdd:
		if err := needReg(); err != nil {
			return err
		}
		switch {
		case reg == RSP:
			s.spDepth -= val
			if s.cfaReg == RSP {
				s.cfaOff = s.spDepth
			}
		case reg == s.cfaReg:
			s.cfaOff -= val
		case reg == RIP:
			return fmt.Errorf("%w: %v adds to rip", errDynOp, op)
		default:
			k := s.regs[reg].Kind
			if k != cfi.Unspecified && k != cfi.SameValue && k != cfi.ValExpression {
				return nil // the caller's value is saved; the change is the callee's own
			}
			s.delta[reg] += val
			s.regs[reg] = cfi.Rule{Kind: cfi.ValExpression, Expr: bregExpr(reg, -s.delta[reg])}
		}
	case unwind.DynPopFrames:
		if op.Val >= 1 {
			*s = entryState()
		}
	default:
		return fmt.Errorf("%w: %v", errDynOp, op)
	}
	return nil
}

// row turns the state into a CFI row.
func (s *dynState) row() cfi.Row {
	regs := make([]cfi.Rule, NumRegs)
	copy(regs, s.regs[:])
	return cfi.Row{CFA: cfi.CFARule{Reg: uint64(s.cfaReg), Offset: s.cfaOff}, Regs: regs}
}

// bregExpr is DW_OP_breg<reg> off: the value of reg plus off (CFA rules
// of Expression kind push the CFA first; the breg result is on top).
func bregExpr(reg int, off int64) []byte {
	b := []byte{0x70 + byte(reg)}
	for {
		c := byte(off & 0x7f)
		off >>= 7
		if (off == 0 && c&0x40 == 0) || (off == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

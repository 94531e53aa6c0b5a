package pa64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/pa64/unwtab"
	"github.com/coreunwind/coreunwind/unwind"
)

// Registered dynamic unwind info (libunwind-dynamic) applied on PA-RISC;
// dynamic_doc.go says what the operations mean here. A DYNAMIC procedure's
// operations build a dynState, the same facts the table+prologue path
// finds (frame size, where rp and the callee-saved registers are); a
// TABLE or REMOTE_TABLE entry is a .PARISC.unwind entry in target memory
// and goes through the table path itself (dynamic_table.go). Frames found
// either way have trust "dynamic".

// ErrDynOp: a registered operation that cannot apply on PA-RISC
// (package unwind's sentinel, which the replay's own errors wrap too).
var ErrDynOp = unwind.ErrDynOp

// maxDynFrameSize bounds an ADD: beyond it the operation is corrupt, not
// a frame.
const maxDynFrameSize = 1 << 40

// dynSaveKind is where the caller's value of a register is.
type dynSaveKind uint8

const (
	dynSame  dynSaveKind = iota // unchanged (or not described)
	dynInReg                    // in another register of the frame
	dynInMem                    // in memory at the frame base + off
	dynDelta                    // the frame's register minus off (ADD on it)
)

type dynSave struct {
	kind dynSaveKind
	reg  int   // dynInReg: the register holding it
	off  int64 // dynInMem: offset from the frame base; dynDelta: the sum added
}

// dynState is what the operations say at one instruction: the frame base
// (the caller's sp) is baseReg's value minus baseOff; sp is base + spSize.
type dynState struct {
	spSize  int64
	baseReg int
	baseOff int64
	saves   [PC]dynSave // GR0..GR31, FR0..FR31
}

func dynEntryState() dynState { return dynState{baseReg: SP} }

// dynRule is the cached outcome for one pc of registered code: a state
// built from DYNAMIC operations, a table rule from a registered table, or
// the leaf rule of registered code without a table entry.
type dynRule struct {
	state *dynState
	table *rule
	leaf  bool
	err   error
}

// notDynamic is cached for pcs whose info is not registered dynamic info.
var notDynamic = &dynRule{}

// dynRules is the table of dynamic rules of each unwind.Cache, keyed by
// pc.
var dynRules = unwind.NewRuleKind[*dynRule]()

// stepDynamic steps callee through registered dynamic info when its pc
// has some. handled is false for a pc without registered info (and for
// registered info that cannot be applied: the static path and its
// fallbacks take over, as for any pc without info).
func (a Arch) stepDynamic(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (res unwind.StepResult, handled bool, err error) {
	pc, _ := callee.Get(PC)
	var dr *dynRule
	rc := dynRules.In(cache)
	if r, ok := rc.Get(pc); ok {
		dr = r
	} else {
		dr = a.dynRuleFor(as, cache, callee.LookupPC(PC), pc)
		rc.Put(pc, dr)
	}
	if dr == notDynamic || dr.err != nil {
		return unwind.StepEnd, false, nil
	}
	switch {
	case dr.state != nil:
		res, err = a.stepDynState(as, dr.state, callee, caller)
	case dr.table != nil && dr.table.entry.Desc.HPUXInterruptMarker():
		sp, _ := callee.Get(SP)
		if err = a.stepHPUXInterrupt(as, sp, caller); err == nil {
			res = unwind.StepCaller
		}
	case dr.table != nil:
		res, err = a.stepTable(as, dr.table, callee, caller)
	default:
		res, err = a.stepLink(callee, caller, RP)
	}
	if err == nil && res == unwind.StepCaller {
		caller.Trust = unwind.TrustDynamic
	}
	return res, true, err
}

// dynRuleFor computes the rule for a frame at pc (lookup address lpc).
func (a Arch) dynRuleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *dynRule {
	pi, err := cache.FindProcInfo(as, lpc)
	if err != nil {
		return notDynamic
	}
	return a.infoDynRule(as, cache, pi, lpc, pc, 0)
}

// infoDynRule is the rule for pc from its unwind info pi, reached
// through depth aliases.
func (a Arch) infoDynRule(as unwind.AddrSpace, cache *unwind.Cache, pi *unwind.ProcInfo, lpc, pc uint64, depth int) *dynRule {
	d, ok := pi.Info.(*unwind.DynInfo)
	if !ok || (pi.Format != unwind.FormatDynamic && pi.Format != unwind.FormatTable && pi.Format != unwind.FormatRemoteTable) {
		if depth > 0 {
			// An alias of static code: that code's table rule.
			return a.staticAliasRule(as, cache, pi, pc)
		}
		return notDynamic
	}
	if d.Err != nil {
		return &dynRule{err: d.Err}
	}
	switch d.Format {
	case unwind.DynFormatDynamic:
		st, alias, err := dynamicState(d, pc)
		if err != nil {
			return &dynRule{err: err}
		}
		if alias != 0 {
			api, err := unwind.FollowAlias(as, cache, pc, alias, depth)
			if err != nil {
				return &dynRule{err: err}
			}
			return a.infoDynRule(as, cache, api, alias, alias, depth+1)
		}
		return &dynRule{state: st}
	case unwind.DynFormatTable, unwind.DynFormatRemoteTable:
		e, found, err := dynTableLookup(as, d, lpc)
		if err != nil {
			return &dynRule{err: err}
		}
		if !found {
			return &dynRule{leaf: true}
		}
		return &dynRule{table: a.tableRule(as, e, pc)}
	}
	return &dynRule{err: fmt.Errorf("dynamic info format %v at %#x: %w", d.Format, pc, unwind.ErrNoInfo)}
}

// staticAliasRule is the rule of an ALIAS target in code with a
// .PARISC.unwind entry.
func (a Arch) staticAliasRule(as unwind.AddrSpace, cache *unwind.Cache, pi *unwind.ProcInfo, pc uint64) *dynRule {
	e, ok := pi.Info.(*unwtab.Entry)
	if !ok || pi.Format != unwind.FormatUnwindTable {
		return &dynRule{err: fmt.Errorf("alias target %#x: unwind info format %v: %w", pc, pi.Format, errNoEntry)}
	}
	run := *e
	run.Start, run.End = pi.StartIP, pi.EndIP-4
	return &dynRule{table: a.tableRule(as, &run, pc)}
}

// tableRule is ruleFor's work for an entry whose Start and End are
// run-time addresses: the prologue scan up to pc.
func (a Arch) tableRule(as unwind.AddrSpace, e *unwtab.Entry, pc uint64) *rule {
	r := &rule{entry: e, start: e.Start}
	r.prologue = scanPrologue(func(addr uint64) (uint32, bool) { return readInsn(as, addr) }, e.Start, pc, a.wide)
	if fb := int64(e.Desc.FrameBytes()); fb > 0 && r.prologue.size > fb {
		r.prologue.size = fb
	}
	return r
}

// dynamicState applies the procedure's operations that have taken effect
// at pc. A non-zero alias says pc unwinds as that address.
func dynamicState(d *unwind.DynInfo, pc uint64) (st *dynState, alias uint64, err error) {
	if d.Proc == nil || pc < d.StartIP || pc > d.EndIP {
		return nil, 0, fmt.Errorf("dynamic procedure [%#x, %#x) does not cover %#x: %w", d.StartIP, d.EndIP, pc, unwind.ErrNoInfo)
	}
	// The instructions before pc have run: an operation at When = w has
	// taken effect when w < idx. A return address (the instruction after
	// the call's delay slot) counts the delay slot as run.
	s := dynEntryState()
	alias, err = unwind.ReplayDynamic(dynArch{}, d, &s, int64(pc-d.StartIP)/4, int64(d.EndIP-d.StartIP)/4)
	if err != nil {
		return nil, 0, fmt.Errorf("procedure %q at %#x: %w", d.Name(), pc, err)
	}
	if alias != 0 {
		return nil, alias, nil
	}
	return &s, 0, nil
}

// dynArch is PA-RISC's side of the replay: instructions are 4 bytes, the
// state a plain value.
type dynArch struct{ unwind.PlainDynState[dynState] }

func (dynArch) InsnBytes(n int64) uint64 { return 4 * uint64(n) }

func (dynArch) Apply(s *dynState, op unwind.DynOp, _ int64) error { return s.apply(op) }

// dynReg checks that r names a general (gr1..gr31) or floating-point
// (fr0..fr31, pa64's numbers 32..63) register.
func dynReg(op unwind.DynOp, r int64) (int, error) {
	if r < 1 || r >= PC {
		return 0, fmt.Errorf("%w: %v names register %d", ErrDynOp, op, r)
	}
	return int(r), nil
}

func (s *dynState) apply(op unwind.DynOp) error {
	val := int64(op.Val)
	switch op.Tag {
	case unwind.DynSaveReg:
		r, err := dynReg(op, int64(op.Reg))
		if err != nil {
			return err
		}
		dst, err := dynReg(op, val)
		if err != nil {
			return err
		}
		if (r >= FR0) != (dst >= FR0) {
			return fmt.Errorf("%w: %v saves between register files", ErrDynOp, op)
		}
		if r == SP {
			// copy %sp,%r3: the frame base is now dst's value minus the
			// frame so far.
			if s.baseReg == SP {
				s.baseReg, s.baseOff = dst, s.spSize
			}
			return nil
		}
		s.saves[r] = dynSave{kind: dynInReg, reg: dst}
	case unwind.DynSpillSPRel, unwind.DynSpillFPRel:
		r, err := dynReg(op, int64(op.Reg))
		if err != nil {
			return err
		}
		if val < -maxDynFrameSize || val > maxDynFrameSize {
			return fmt.Errorf("%w: %v: offset out of range", ErrDynOp, op)
		}
		off := val // SPILL_FP_REL: from the frame base
		if op.Tag == unwind.DynSpillSPRel {
			off += s.spSize // from sp as the operations before it left it
		}
		s.saves[r] = dynSave{kind: dynInMem, off: off}
	case unwind.DynAdd:
		r, err := dynReg(op, int64(op.Reg))
		if err != nil {
			return err
		}
		if val < -maxDynFrameSize || val > maxDynFrameSize || r >= FR0 {
			return fmt.Errorf("%w: %v", ErrDynOp, op)
		}
		switch {
		case r == SP:
			s.spSize += val // stacks grow up: a frame is a positive ADD
			if s.baseReg == SP {
				s.baseOff = s.spSize
			}
		case r == s.baseReg:
			s.baseOff += val
		case s.saves[r].kind == dynSame || s.saves[r].kind == dynDelta:
			s.saves[r] = dynSave{kind: dynDelta, off: s.saves[r].off + val}
		}
		// else: the caller's value is saved; the change is the callee's own.
	case unwind.DynPopFrames:
		*s = dynEntryState()
	default:
		return fmt.Errorf("%w: %v", ErrDynOp, op)
	}
	return nil
}

// stepDynState recovers the caller from a DYNAMIC procedure's state.
func (a Arch) stepDynState(as unwind.AddrSpace, s *dynState, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	pc, _ := callee.Get(PC)
	bv, ok := callee.Get(s.baseReg)
	if !ok {
		return unwind.StepEnd, fmt.Errorf("pc %#x: %w: %s (the frame base)", pc, unwind.ErrNoReg, RegName(s.baseReg))
	}
	base := bv - uint64(s.baseOff)
	a.inherit(callee, caller)
	value := func(r int) (uint64, unwind.SaveLoc, error) {
		sv := s.saves[r]
		switch sv.kind {
		case dynInReg:
			v, ok := callee.Get(sv.reg)
			if !ok {
				return 0, unwind.SaveLoc{}, fmt.Errorf("%w: %s", unwind.ErrNoReg, RegName(sv.reg))
			}
			return v, unwind.SaveLoc{Kind: unwind.LocReg, Reg: sv.reg}, nil
		case dynInMem:
			addr := base + uint64(sv.off)
			var v uint64
			var err error
			if r >= FR0 {
				var b [8]byte
				err = as.ReadMem(addr, b[:])
				v = as.ByteOrder().Uint64(b[:])
			} else {
				v, err = a.readWord(as, addr)
			}
			if err != nil {
				return 0, unwind.SaveLoc{}, fmt.Errorf("%s saved at %#x: %w", RegName(r), addr, err)
			}
			return v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}, nil
		case dynDelta:
			v, ok := callee.Get(r)
			if !ok {
				return 0, unwind.SaveLoc{}, fmt.Errorf("%w: %s", unwind.ErrNoReg, RegName(r))
			}
			return v - uint64(sv.off), unwind.SaveLoc{Kind: unwind.LocValue}, nil
		}
		v, ok := callee.Get(r)
		if !ok {
			return 0, unwind.SaveLoc{}, fmt.Errorf("%w: %s", unwind.ErrNoReg, RegName(r))
		}
		return v, unwind.SaveLoc{Kind: unwind.LocSame}, nil
	}
	for r := 1; r < PC; r++ {
		if r == RP || r == SP || s.saves[r].kind == dynSame {
			continue
		}
		if v, loc, err := value(r); err == nil {
			caller.Set(r, v, loc)
		}
	}
	ra, loc, err := value(RP)
	if err != nil {
		return unwind.StepEnd, fmt.Errorf("pc %#x: return pointer: %w", pc, err)
	}
	if loc.Kind == unwind.LocSame {
		loc = unwind.SaveLoc{Kind: unwind.LocReg, Reg: RP} // the return is still in rp
	}
	if ra&privMask == 0 {
		return unwind.StepEnd, nil
	}
	callerSP, spLoc := base, unwind.SaveLoc{Kind: unwind.LocValue}
	if s.saves[SP].kind != dynSame {
		if callerSP, spLoc, err = value(SP); err != nil {
			return unwind.StepEnd, fmt.Errorf("pc %#x: sp: %w", pc, err)
		}
	}
	caller.Set(SP, callerSP, spLoc)
	caller.Set(PC, ra&privMask, loc)
	caller.CFA, caller.HasCFA = callerSP, false
	caller.Trust = unwind.TrustDynamic
	return unwind.StepCaller, nil
}

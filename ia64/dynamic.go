package ia64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Dynamic unwind info on IA-64 (libunwind-dynamic; the model, the
// registration list and the replay of the regions and operations,
// unwind.ReplayDynamic, are package unwind's). libunwind designed the
// DYNAMIC format for IA-64, and its operations are the unwind
// descriptors' effects, so they are applied to the same unwind state
// (state.go) and compiled to the same script (script.go): the stepper has
// one path, and a frame unwound through registered info has trust
// "dynamic".
//
//   - An instruction index is a slot index: three slots per 16-byte
//     bundle, slot = 3*(bundle offset/16) + slot number. A region's
//     InsnCount counts slots; a negative count -N covers the procedure's
//     last N slots. Every region is a prologue region (it pushes the
//     state, as an R1 prologue header does).
//   - An operation at When = w takes effect for targets after slot w of
//     its region (w beyond the region means its last slot; w ≤ -1 the
//     region's start), like the time of an X descriptor. Its qualifying
//     predicate is a predicate register: p0 is always true; p1..p63 make
//     the operation apply only when the frame's predicate is set.
//   - Operations name libunwind's UNW_IA64_* registers (the Unw*
//     constants below): r4..r7, sp (UNW_IA64_SP, or r12), the primary
//     UNaT (UNW_IA64_NAT), f2..f5 and f16..f31, b0 (the return pointer)
//     and b1..b5, pr, and ar.bsp, ar.bspstore, ar.fpsr, ar.lc, ar.pfs,
//     ar.rnat and ar.unat.
//   - SAVE_REG r,d: the caller's r is in register d, a GR, FR or BR
//     (X2 spill_reg; SAVE_REG sp,d is a variable frame's psp_gr).
//   - SPILL_SP_REL r,off: the caller's r is at sp+off (X1 spill_sprel,
//     off in bytes). SPILL_FP_REL r,off: at psp+16-off, the previous sp
//     being IA-64's frame pointer (X1 spill_psprel).
//   - ADD sp,v: the memory stack frame grew by -v bytes (P7 mem_stack_f
//     of -v/16 units; v a multiple of 16). Successive ADDs accumulate
//     (libunwind keeps only the last); once sp was saved by SAVE_REG the
//     saved value wins. ADD on any other register is invalid.
//   - POP_FRAMES n: sp is restored at When and n prologue states are
//     popped at the region's end (B2 epilogue with ecount n-1).
//   - LABEL_STATE / COPY_STATE: B1 label_state / copy_state (the
//     current state and the stack of prologue states; at most 64 labels).
//   - ALIAS a: the region behaves as the code at a plus the target's
//     slot offset in the region (clipped to the region's length): that
//     code's unwind info, table or dynamic, gives the whole state
//     (chains of at most 4).
//
// TABLE and REMOTE_TABLE data is an .IA_64.unwind table in target
// memory: TableLen words of (start, end, info offset) triples, offsets
// from Segbase, sorted by start; each info block (header word, descriptor
// area, personality word) is at Segbase plus its offset. An address in
// the registered range without a table entry has the default leaf state,
// as in libunwind. Words are the target's pointer size.

// libunwind's UNW_IA64_* register numbers (libunwind-ia64.h), as DYNAMIC
// operations name registers.
const (
	UnwGR         = 0   // r0..r127
	UnwNaT        = 128 // nat0..nat127; UnwNaT itself is the primary UNaT
	UnwFR         = 256 // f0..f127
	UnwAR         = 384 // ar0..ar127
	UnwARBSP      = UnwAR + 17
	UnwARBSPSTORE = UnwAR + 18
	UnwARRNAT     = UnwAR + 19
	UnwARUNAT     = UnwAR + 36
	UnwARFPSR     = UnwAR + 40
	UnwARPFS      = UnwAR + 64
	UnwARLC       = UnwAR + 65
	UnwBR         = 512 // b0..b7; b0 is the return pointer
	UnwPR         = 520
	UnwCFM        = 521
	UnwBSP        = 522
	UnwIP         = 523
	UnwSP         = 524
)

// ErrDynOp: a registered operation that cannot apply on IA-64 (package
// unwind's sentinel, which the replay's own errors wrap too).
var ErrDynOp = unwind.ErrDynOp

// dynLeafScript is the leaf state of registered code without a table
// entry: nothing saved, rp in b0.
var dynLeafScript = &script{noEntry: true, rp: loc{whereBR, 0}, dynamic: true}

// dynamicScript is procScript for the dynamic formats.
func dynamicScript(as unwind.AddrSpace, cache *unwind.Cache, pi *unwind.ProcInfo, lookup, ip uint64, pr *uint64, depth int) (*script, bool, error) {
	d, ok := pi.Info.(*unwind.DynInfo)
	if !ok {
		return nil, false, fmt.Errorf("dynamic proc info for %#x carries %T: %w", ip, pi.Info, unwind.ErrNoInfo)
	}
	if d.Err != nil {
		return nil, false, d.Err
	}
	switch d.Format {
	case unwind.DynFormatDynamic:
		if ip < d.StartIP || ip > d.EndIP {
			return nil, false, fmt.Errorf("ip %#x outside procedure [%#x, %#x): %w", ip, d.StartIP, d.EndIP, unwind.ErrBadFrame)
		}
		sr, alias, err := dynamicState(d, whenTarget(ip, d.StartIP), pr)
		if err != nil {
			return nil, false, fmt.Errorf("procedure %q at %#x: %w", d.Name(), ip, err)
		}
		if alias != 0 {
			api, err := unwind.FollowAlias(as, cache, ip, alias, depth)
			if err != nil {
				return nil, false, err
			}
			s, predicated, err := procScript(as, cache, api, alias, alias, pr, depth+1)
			if err != nil || s.dynamic {
				return s, predicated || sr.predicated, err
			}
			ds := *s
			ds.dynamic = true
			return &ds, predicated || sr.predicated, nil
		}
		s := compile(sr)
		s.dynamic = true
		return s, sr.predicated, nil
	case unwind.DynFormatTable, unwind.DynFormatRemoteTable:
		return dynamicTableScript(as, d, lookup, ip, pr)
	}
	return nil, false, fmt.Errorf("dynamic info format %v at %#x: %w", d.Format, ip, unwind.ErrNoInfo)
}

// slotAddr is the address offset of slot n from a bundle-aligned start.
func slotAddr(n int64) uint64 { return uint64(n/3)*16 + uint64(n%3) }

// dynamicState applies a DYNAMIC procedure's regions and operations to
// the target slot. A non-zero alias says the state is that address's.
func dynamicState(d *unwind.DynInfo, target int64, pr *uint64) (sr *stateRecord, alias uint64, err error) {
	sr = newStateRecord(target, pr)
	alias, err = unwind.ReplayDynamic(dynArch{}, d, sr, target, 3*int64((d.EndIP-d.StartIP)/16))
	if err != nil || alias != 0 {
		return sr, alias, err
	}
	sr.finish()
	return sr, 0, nil
}

// dynArch is IA-64's side of the replay: slots, the unwind state record
// with its prologue stack, predicates.
type dynArch struct{}

func (dynArch) InsnBytes(n int64) uint64 { return slotAddr(n) }

// Region makes every region a prologue region, as libunwind's
// parse_dynamic does.
func (dynArch) Region(sr *stateRecord, span unwind.RegionSpan) {
	if !sr.firstRegion && span.Start > sr.regionStart+sr.regionLen {
		// Slots between the regions (before a region counted from the
		// end) behave as the end of the region before them.
		sr.regionLen = span.Start - sr.regionStart
	}
	sr.region(false, uint64(span.Len), 0, 0)
	if !sr.done {
		sr.regionStart = span.Start
	}
}

// Predicate: p0 is always true (the replay does not ask); p1..p63 hold
// when the frame's predicate is set, and a result that depended on one is
// not cached by address alone.
func (dynArch) Predicate(sr *stateRecord, qp int8) (bool, error) {
	if qp < 0 || qp > 63 {
		return false, fmt.Errorf("%w: qualifying predicate p%d", ErrDynOp, qp)
	}
	sr.predicated = true
	return sr.prKnown && sr.pr&(1<<qp) != 0, nil
}

func (dynArch) Label(sr *stateRecord) labeled        { return sr.label() }
func (dynArch) CopyLabel(sr *stateRecord, l labeled) { sr.copyLabel(l) }

// Apply applies one operation with the effect of its descriptor; when is
// the slot it takes effect after.
func (dynArch) Apply(sr *stateRecord, op unwind.DynOp, when int64) error {
	switch op.Tag {
	case unwind.DynSaveReg:
		s, err := dynSReg(op, false)
		if err != nil {
			return err
		}
		w, n, err := dynSaveDest(op)
		if err != nil {
			return err
		}
		sr.cur[s] = regInfo{where: w, when: when, val: n}
	case unwind.DynSpillSPRel, unwind.DynSpillFPRel:
		s, err := dynSReg(op, true)
		if err != nil {
			return err
		}
		off := int64(op.Val)
		if off < -1<<40 || off > 1<<40 {
			return fmt.Errorf("%w: %v: offset out of range", ErrDynOp, op)
		}
		if op.Tag == unwind.DynSpillSPRel {
			sr.cur[s] = regInfo{where: whereSPRel, when: when, val: off}
		} else {
			sr.cur[s] = regInfo{where: wherePSPRel, when: when, val: 0x10 - off}
		}
	case unwind.DynAdd:
		if op.Reg != UnwSP && op.Reg != UnwGR+SP {
			return fmt.Errorf("%w: %v: ADD applies to sp only", ErrDynOp, op)
		}
		v := int64(op.Val)
		if v%16 != 0 || v < -1<<40 || v > 1<<40 {
			return fmt.Errorf("%w: %v: frame size not a multiple of 16", ErrDynOp, op)
		}
		p := &sr.cur[sPSP]
		if p.where != whereNone {
			return nil // sp was saved: its saved value is the caller's
		}
		p.val -= v
		if p.when == whenNever {
			p.when = when
		}
	case unwind.DynPopFrames:
		sr.whenSPRestored = when
		sr.epilogueCount = int64(min(op.Val, maxNesting))
	default:
		return fmt.Errorf("%w: %v", ErrDynOp, op)
	}
	return nil
}

// dynSReg maps an operation's register to the unwind state's; memory
// selects the primary UNaT's memory form (a spill) over its GR form.
func dynSReg(op unwind.DynOp, memory bool) (sreg, error) {
	r := int(op.Reg)
	switch {
	case r >= UnwGR+4 && r <= UnwGR+7:
		return sR4 + sreg(r-UnwGR-4), nil
	case r == UnwSP || r == UnwGR+SP:
		return sPSP, nil
	case r == UnwNaT:
		if memory {
			return sPriUnatMem, nil
		}
		return sPriUnatGR, nil
	case r >= UnwFR+2 && r <= UnwFR+5:
		return sF2 + sreg(r-UnwFR-2), nil
	case r >= UnwFR+16 && r <= UnwFR+31:
		return sF16 + sreg(r-UnwFR-16), nil
	case r == UnwBR:
		return sRP, nil
	case r >= UnwBR+1 && r <= UnwBR+5:
		return sB1 + sreg(r-UnwBR-1), nil
	case r == UnwPR:
		return sPR, nil
	}
	switch r {
	case UnwARBSP:
		return sBSP, nil
	case UnwARBSPSTORE:
		return sBSPSTORE, nil
	case UnwARFPSR:
		return sFPSR, nil
	case UnwARLC:
		return sLC, nil
	case UnwARPFS:
		return sPFS, nil
	case UnwARRNAT:
		return sRNAT, nil
	case UnwARUNAT:
		return sUNAT, nil
	}
	return 0, fmt.Errorf("%w: %v: register %d is not preserved", ErrDynOp, op, r)
}

// dynSaveDest is where SAVE_REG puts a register: a GR, FR or BR.
func dynSaveDest(op unwind.DynOp) (where, int64, error) {
	d := op.Val
	switch {
	case d-UnwGR < 128:
		return whereGR, int64(d - UnwGR), nil
	case d >= UnwFR && d-UnwFR < 128:
		return whereFR, int64(d - UnwFR), nil
	case d >= UnwBR && d-UnwBR < 8:
		return whereBR, int64(d - UnwBR), nil
	}
	return 0, 0, fmt.Errorf("%w: %v: cannot save into register %d", ErrDynOp, op, d)
}

package ia64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/ia64/unwtab"
)

// sreg indexes the registers an unwind state tracks (libunwind's
// UNW_REG_*): the frame registers first, then the preserved ones.
type sreg uint8

const (
	sPSP sreg = iota
	sRP
	sPFS
	sPR
	sUNAT
	sLC
	sFPSR
	sPriUnatGR
	sPriUnatMem
	sBSP
	sBSPSTORE
	sRNAT
	sR4                  // r4..r7
	sF2      = sR4 + 4   // f2..f5
	sF16     = sF2 + 4   // f16..f31
	sB1      = sF16 + 16 // b1..b5
	numSRegs = sB1 + 5
)

// saveOrder is the order in which registers with only a *_when record
// take the next save GR (rule 3 of the software conventions' unwind
// chapter; libunwind's save_order).
var saveOrder = [...]sreg{sRP, sPFS, sPSP, sPR, sUNAT, sLC, sFPSR, sPriUnatGR}

// where says where a saved register is.
type where uint8

const (
	whereNone      where = iota
	whereGR              // in general register val (stacked ones in the backing store)
	whereFR              // in floating-point register val
	whereBR              // in branch register val
	whereSPRel           // in memory at sp + val
	wherePSPRel          // in memory at psp + val (val may be negative)
	whereGRSave          // in the next save GR (resolved at the end of the prologue)
	whereSpillHome       // in the memory spill area (resolved at the end of the prologue)
)

const whenNever = int64(1) << 62

// regInfo is one register's save: where, at which slot, and the
// location's value (register number or byte offset).
type regInfo struct {
	where where
	when  int64
	val   int64
}

type regSet [numSRegs]regInfo

func newRegSet() regSet {
	var r regSet
	for i := range r {
		r[i].when = whenNever
	}
	return r
}

// labeled is a state saved by label_state: the register set and the
// stack of sets pushed by the enclosing prologues.
type labeled struct {
	cur   regSet
	stack []regSet
}

// label is the state as label_state keeps it.
func (sr *stateRecord) label() labeled {
	return labeled{cur: sr.cur, stack: append([]regSet(nil), sr.stack...)}
}

// copyLabel makes a labelled state current (copy_state).
func (sr *stateRecord) copyLabel(l labeled) {
	sr.cur = l.cur
	sr.stack = append(sr.stack[:0], l.stack...)
}

// stateRecord is the decoder's state while walking the descriptors
// toward the target slot (libunwind's ia64_state_record).
type stateRecord struct {
	target         int64 // slot of the target ip
	regionStart    int64
	regionLen      int64
	firstRegion    bool
	inBody         bool
	done           bool
	epilogueCount  int64
	whenSPRestored int64
	spillOffset    int64
	anySpills      bool
	grSaveLoc      int64
	imask          []byte
	imaskRlen      int64
	returnLinkReg  int64
	abiMarker      uint16
	cur            regSet
	stack          []regSet
	labels         map[uint64]labeled
	// pr is the frame's predicate register value (for X3/X4 records);
	// prKnown false makes every predicated record inactive.
	pr      uint64
	prKnown bool
	// predicated notes that a predicated record was consulted, so the
	// result depends on pr and must not be cached by address alone.
	predicated bool
}

// maxNesting bounds the prologue stack and the labels: real code nests a
// handful of prologues.
const maxNesting = 1024

// newStateRecord is the state before the first region: nothing saved.
func newStateRecord(target int64, pr *uint64) *stateRecord {
	sr := &stateRecord{target: target, firstRegion: true, whenSPRestored: whenNever, spillOffset: 0x10, cur: newRegSet()}
	if pr != nil {
		sr.pr, sr.prKnown = *pr, true
	}
	return sr
}

// buildState walks recs to the target slot and returns the final state.
func buildState(recs []unwtab.Record, target int64, pr *uint64) (*stateRecord, error) {
	sr := newStateRecord(target, pr)
	for i := range recs {
		if sr.done {
			break
		}
		if err := sr.apply(&recs[i]); err != nil {
			return sr, err
		}
	}
	sr.finish()
	return sr, nil
}

// finish closes the last region and drops what a restored sp took with
// it: the end of every state built for a target slot, from descriptors or
// from dynamic operations.
func (sr *stateRecord) finish() {
	if !sr.done {
		// The descriptors ended inside the last region: close it as
		// the next region header would.
		sr.region(false, 0, 0, 0)
	}
	if sr.target > sr.whenSPRestored {
		// sp is restored: the memory frame and everything saved in it
		// below psp are gone.
		sr.cur[sPSP] = regInfo{when: whenNever}
		for i := range sr.cur {
			r := &sr.cur[i]
			if (r.where == wherePSPRel && r.val <= 0x10) || r.where == whereSPRel {
				*r = regInfo{when: whenNever}
			}
		}
	}
}

func (sr *stateRecord) regionTime(t uint64) int64 {
	w := sr.regionLen - 1
	if tt := int64(min(t, 1<<40)); tt < w {
		w = tt
	}
	return sr.regionStart + w
}

func (sr *stateRecord) regionEnd() int64 { return sr.regionStart + sr.regionLen - 1 }

func (sr *stateRecord) set(r sreg, w where, when int64, val int64) {
	ri := &sr.cur[r]
	ri.val, ri.where = val, w
	if ri.when == whenNever {
		ri.when = when
	}
}

// region handles a region header (libunwind's desc_prologue).
func (sr *stateRecord) region(body bool, rlen uint64, mask uint8, grsave int64) {
	if !(sr.inBody || sr.firstRegion) {
		sr.finishPrologue()
	}
	sr.firstRegion = false
	if sr.target < sr.regionStart+sr.regionLen {
		sr.done = true
		return
	}
	start := sr.regionStart + sr.regionLen
	for i := int64(0); i < sr.epilogueCount; i++ {
		sr.pop()
	}
	sr.epilogueCount = 0
	sr.whenSPRestored = whenNever
	sr.regionStart = start
	sr.regionLen = int64(min(rlen, uint64(whenNever)))
	sr.inBody = body
	if !body {
		sr.push()
		for i := 0; i < 4; i++ {
			if mask&0x8 != 0 {
				sr.set(saveOrder[i], whereGR, sr.regionEnd(), grsave)
				grsave++
			}
			mask <<= 1
		}
		sr.grSaveLoc = grsave
		sr.anySpills = false
		sr.imask = nil
		sr.spillOffset = 0x10
	}
}

func (sr *stateRecord) push() {
	if len(sr.stack) < maxNesting {
		sr.stack = append(sr.stack, sr.cur)
	}
}

func (sr *stateRecord) pop() {
	if n := len(sr.stack); n > 0 {
		sr.cur = sr.stack[n-1]
		sr.stack = sr.stack[:n-1]
	}
}

// finishPrologue resolves implicit save GRs, spill times from the imask
// and the layout of the memory spill area.
func (sr *stateRecord) finishPrologue() {
	for _, r := range saveOrder {
		if sr.cur[r].where == whereGRSave {
			sr.cur[r].where = whereGR
			sr.cur[r].val = sr.grSaveLoc
			sr.grSaveLoc++
		}
	}
	if sr.imask != nil {
		next := [3]sreg{sF2, sR4, sB1}
		limit := [3]sreg{sF16 + 15, sR4 + 3, sB1 + 4}
		for t := int64(0); t < sr.imaskRlen && uint64(t/4) < uint64(len(sr.imask)); t++ {
			kind := unwtab.ImaskSlot(sr.imask, uint64(t))
			if kind == 0 {
				continue
			}
			k := kind - 1
			for next[k] <= limit[k] && sr.cur[next[k]].where != whereSpillHome {
				next[k]++
			}
			if next[k] <= limit[k] {
				sr.cur[next[k]].when = sr.regionStart + t
				next[k]++
			}
		}
	}
	if sr.anySpills {
		off := sr.spillOffset
		alloc := func(size int64, lo, hi sreg) {
			for r := int(hi); r >= int(lo); r-- {
				if sr.cur[r].where == whereSpillHome {
					off -= size
					sr.cur[r].where, sr.cur[r].val = wherePSPRel, off
				}
			}
		}
		alloc(16, sF2, sF16+15)
		alloc(8, sB1, sB1+4)
		alloc(8, sR4, sR4+3)
	}
}

// p3/p7/p8 register names to state registers.
func unwRegSReg(r unwtab.UnwReg, memory bool) (sreg, bool) {
	switch r {
	case unwtab.RegPSP:
		return sPSP, true
	case unwtab.RegRP:
		return sRP, true
	case unwtab.RegPFS:
		return sPFS, true
	case unwtab.RegPR:
		return sPR, true
	case unwtab.RegUNAT:
		return sUNAT, true
	case unwtab.RegLC:
		return sLC, true
	case unwtab.RegRNAT:
		return sRNAT, true
	case unwtab.RegBSP:
		return sBSP, true
	case unwtab.RegBSPSTORE:
		return sBSPSTORE, true
	case unwtab.RegFPSR:
		return sFPSR, true
	case unwtab.RegPRIUNAT:
		if memory {
			return sPriUnatMem, true
		}
		return sPriUnatGR, true
	}
	return 0, false
}

// abregSReg decodes an X-record abreg; memory selects the primary UNaT's
// memory form.
func abregSReg(ab uint8, memory bool) (sreg, bool) {
	switch {
	case ab >= 0x04 && ab <= 0x07:
		return sR4 + sreg(ab-0x04), true
	case ab >= 0x22 && ab <= 0x25:
		return sF2 + sreg(ab-0x22), true
	case ab >= 0x30 && ab <= 0x3f:
		return sF16 + sreg(ab-0x30), true
	case ab >= 0x41 && ab <= 0x45:
		return sB1 + sreg(ab-0x41), true
	}
	switch ab {
	case 0x60:
		return sPR, true
	case 0x61:
		return sPSP, true
	case 0x62:
		if memory {
			return sPriUnatMem, true
		}
		return sPriUnatGR, true
	case 0x63:
		return sRP, true
	case 0x64:
		return sBSP, true
	case 0x65:
		return sBSPSTORE, true
	case 0x66:
		return sRNAT, true
	case 0x67:
		return sUNAT, true
	case 0x68:
		return sFPSR, true
	case 0x69:
		return sPFS, true
	case 0x6a:
		return sLC, true
	}
	return 0, false
}

// active reports whether an X record at t applies for the target
// (libunwind's desc_is_active).
func (sr *stateRecord) active(qp uint8, t uint64) bool {
	if sr.target <= sr.regionTime(t) {
		return false
	}
	if qp > 0 {
		sr.predicated = true
		if !sr.prKnown || sr.pr&(1<<qp) == 0 {
			return false
		}
	}
	return true
}

func (sr *stateRecord) apply(r *unwtab.Record) error {
	switch r.Op {
	case unwtab.OpPrologue, unwtab.OpBody:
		sr.region(r.Op == unwtab.OpBody, r.Rlen, 0, 0)
	case unwtab.OpPrologueGR:
		sr.region(false, r.Rlen, r.Mask, int64(r.GR))
	case unwtab.OpBrMem:
		for i := 0; i < 5; i++ {
			if r.Mask&(1<<i) != 0 {
				sr.set(sB1+sreg(i), whereSpillHome, sr.regionEnd(), 0)
				sr.anySpills = true
			}
		}
	case unwtab.OpBrGR:
		gr := int64(r.GR)
		for i := 0; i < 5; i++ {
			if r.Mask&(1<<i) != 0 {
				sr.set(sB1+sreg(i), whereGR, sr.regionEnd(), gr)
				gr++
			}
		}
	case unwtab.OpRegGR:
		if s, ok := unwRegSReg(r.Reg, false); ok {
			sr.set(s, whereGR, sr.regionEnd(), int64(r.GR))
		}
	case unwtab.OpRpBR:
		sr.returnLinkReg = int64(r.GR)
	case unwtab.OpSpillMask:
		sr.imask, sr.imaskRlen = r.IMask, int64(min(r.RegionRlen, uint64(whenNever)))
	case unwtab.OpFrGrMem, unwtab.OpFrMem, unwtab.OpGrMem:
		for i := 0; i < 4; i++ {
			if r.Mask&(1<<i) != 0 && r.Op != unwtab.OpFrMem {
				sr.set(sR4+sreg(i), whereSpillHome, sr.regionEnd(), 0)
				sr.anySpills = true
			}
		}
		for i := 0; i < 20; i++ {
			if r.FRMask&(1<<i) != 0 && r.Op != unwtab.OpGrMem {
				s := sF2 + sreg(i)
				if i >= 4 {
					s = sF16 + sreg(i-4)
				}
				sr.set(s, whereSpillHome, sr.regionEnd(), 0)
				sr.anySpills = true
			}
		}
	case unwtab.OpGrGR:
		gr := int64(r.GR)
		for i := 0; i < 4; i++ {
			if r.Mask&(1<<i) != 0 {
				sr.set(sR4+sreg(i), whereGR, sr.regionEnd(), gr)
				gr++
			}
		}
	case unwtab.OpMemStackF:
		sr.set(sPSP, whereNone, sr.regionTime(r.T), int64(min(r.Size, 1<<40)*16))
	case unwtab.OpMemStackV:
		sr.cur[sPSP].when = sr.regionTime(r.T)
	case unwtab.OpSpillBase:
		sr.spillOffset = 0x10 - 4*int64(min(r.Off, 1<<40))
	case unwtab.OpRegWhen, unwtab.OpPriunatWhenGR, unwtab.OpPriunatWhenMem:
		s, ok := unwRegSReg(r.Reg, r.Op == unwtab.OpPriunatWhenMem)
		if !ok {
			break
		}
		if sr.cur[s].where == whereNone {
			sr.cur[s].where = whereGRSave
		}
		sr.cur[s].when = sr.regionTime(r.T)
	case unwtab.OpRegSprel:
		if s, ok := unwRegSReg(r.Reg, true); ok {
			sr.set(s, whereSPRel, sr.regionEnd(), 4*int64(min(r.Off, 1<<40)))
		}
	case unwtab.OpRegPsprel:
		if s, ok := unwRegSReg(r.Reg, true); ok {
			sr.set(s, wherePSPRel, sr.regionEnd(), 0x10-4*int64(min(r.Off, 1<<40)))
		}
	case unwtab.OpUnwabi:
		sr.abiMarker = uint16(r.ABI)<<8 | uint16(r.Ctx)
	case unwtab.OpLabelState:
		if sr.labels == nil {
			sr.labels = map[uint64]labeled{}
		}
		if len(sr.labels) < maxNesting {
			sr.labels[r.Label] = sr.label()
		}
	case unwtab.OpCopyState:
		l, ok := sr.labels[r.Label]
		if !ok {
			return fmt.Errorf("copy_state of unknown label %d", r.Label)
		}
		sr.copyLabel(l)
	case unwtab.OpEpilogue:
		sr.whenSPRestored = sr.regionEnd() - int64(min(r.T, uint64(whenNever)))
		sr.epilogueCount = int64(min(r.ECount, maxNesting)) + 1
	case unwtab.OpSpillSprel, unwtab.OpSpillPsprel:
		if !sr.active(r.QP, r.T) {
			break
		}
		s, ok := abregSReg(r.ABReg, true)
		if !ok {
			break
		}
		ri := &sr.cur[s]
		ri.when = sr.regionTime(r.T)
		if r.Op == unwtab.OpSpillSprel {
			ri.where, ri.val = whereSPRel, 4*int64(min(r.Off, 1<<40))
		} else {
			ri.where, ri.val = wherePSPRel, 0x10-4*int64(min(r.Off, 1<<40))
		}
	case unwtab.OpSpillReg:
		if !sr.active(r.QP, r.T) {
			break
		}
		s, ok := abregSReg(r.ABReg, false)
		if !ok {
			break
		}
		w := whereGR
		switch {
		case r.X == 1:
			w = whereBR
		case r.YTReg&0x80 != 0:
			w = whereFR
		}
		sr.cur[s] = regInfo{where: w, when: sr.regionTime(r.T), val: int64(r.YTReg & 0x7f)}
	case unwtab.OpRestore:
		if !sr.active(r.QP, r.T) {
			break
		}
		if s, ok := abregSReg(r.ABReg, false); ok {
			sr.cur[s] = regInfo{when: whenNever}
		}
	}
	return nil
}

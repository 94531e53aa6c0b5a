package ia64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/ia64/unwtab"
	"github.com/coreunwind/coreunwind/unwind"
)

// loc is a save location of the unwind state, resolved for one target
// slot.
type loc struct {
	where where
	val   int64
}

// script is the unwind state of a procedure at one ip, compiled once and
// cached by ip: the frame-state updates (psp, rp, pfs, bsp) apply first,
// then the other registers' save locations.
type script struct {
	pspAdd  int64 // psp = sp + pspAdd (fixed memory frame), when pspLoc is none
	pspLoc  loc   // psp saved: psp_gr, psp_sprel, ...
	rp      loc   // return pointer (a branch register when not saved)
	pfs     loc   // caller's cfm; none: the live ar.pfs
	bsp     loc   // saved ar.bsp (a procedure that switches backing stores)
	regs    []regLoc
	abi     uint16 // P10 marker (abi<<8 | context)
	noEntry bool   // no table entry: the default leaf state
	dynamic bool   // from dynamic info registered at run time
}

// regLoc says where the caller's value of frame register dst is.
type regLoc struct {
	dst int
	l   loc
}

// ABI markers of signal trampolines (libunwind's ABI_MARKER_*).
const (
	abiLinuxSigtramp    = 3<<8 | 's'
	abiOldLinuxSigtramp = 0<<8 | 's'
	abiHPUXSigtramp     = 1<<8 | 1
)

func (s *script) isSigtramp() bool {
	return s.abi == abiLinuxSigtramp || s.abi == abiOldLinuxSigtramp
}

// leafScript is the state of a procedure without an entry: nothing
// saved, return pointer in b0, caller's cfm in ar.pfs.
var leafScript = &script{noEntry: true, rp: loc{whereBR, 0}}

// sregFrameReg maps the state registers that are copied as plain values
// to Frame registers.
func sregFrameReg(r sreg) int {
	switch {
	case r >= sR4 && r < sR4+4:
		return 4 + int(r-sR4)
	case r >= sF2 && r < sF2+4:
		return FR2 + int(r-sF2)
	case r >= sF16 && r < sF16+16:
		return FR16 + int(r-sF16)
	case r >= sB1 && r < sB1+5:
		return BR0 + 1 + int(r-sB1)
	}
	switch r {
	case sPR:
		return PR
	case sUNAT:
		return UNAT
	case sLC:
		return LC
	case sFPSR:
		return FPSR
	case sRNAT:
		return RNAT
	case sBSPSTORE:
		return BSPSTORE
	}
	return -1
}

// compile turns a final state record into a script (libunwind's
// build_script).
func compile(sr *stateRecord) *script {
	s := &script{abi: sr.abiMarker}
	saved := func(r sreg) bool {
		ri := sr.cur[r]
		return ri.where != whereNone && ri.where != whereGRSave && ri.where != whereSpillHome && ri.when < sr.target
	}
	if p := sr.cur[sPSP]; p.where == whereNone && p.val != 0 && p.when < sr.target {
		s.pspAdd = p.val
	}
	if saved(sPSP) {
		s.pspLoc = loc{sr.cur[sPSP].where, sr.cur[sPSP].val}
	}
	if saved(sRP) {
		s.rp = loc{sr.cur[sRP].where, sr.cur[sRP].val}
	} else {
		s.rp = loc{whereBR, sr.returnLinkReg}
	}
	if saved(sPFS) {
		s.pfs = loc{sr.cur[sPFS].where, sr.cur[sPFS].val}
	}
	if saved(sBSP) && saved(sBSPSTORE) && saved(sRNAT) {
		s.bsp = loc{sr.cur[sBSP].where, sr.cur[sBSP].val}
	}
	// The primary UNaT is in its GR or its memory slot, whichever was
	// saved last before the target.
	gr, mem := sr.cur[sPriUnatGR], sr.cur[sPriUnatMem]
	pri := sPriUnatGR
	switch {
	case sr.target < gr.when:
		pri = sPriUnatMem
	case sr.target < mem.when:
	case mem.when > gr.when:
		pri = sPriUnatMem
	}
	if saved(pri) {
		s.regs = append(s.regs, regLoc{PRIUNAT, loc{sr.cur[pri].where, sr.cur[pri].val}})
	}
	for r := sreg(0); r < numSRegs; r++ {
		if d := sregFrameReg(r); d >= 0 && saved(r) {
			s.regs = append(s.regs, regLoc{d, loc{sr.cur[r].where, sr.cur[r].val}})
		}
	}
	return s
}

// whenTarget is ip's slot index from the procedure start: 3 slots per
// 16-byte bundle.
func whenTarget(ip, start uint64) int64 {
	return 3*int64((ip&^0xf)-start)/16 + int64(ip&0xf)
}

// scripts is the IA-64 rule table of each unwind.Cache.
var scripts = unwind.NewRuleKind[*script]()

// scriptFor returns the script for frame f's ip, from the cache when an
// earlier step computed it. pr is the frame's predicates, for predicated
// records; scripts that consulted them are not cached.
func scriptFor(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (*script, *unwind.ProcInfo, error) {
	ip, _ := f.Get(IP)
	if s, ok := scripts.In(cache).Get(ip); ok {
		return s, nil, nil
	}
	pi, err := cache.FindProcInfo(as, f.LookupPC(IP))
	if err != nil || pi == nil {
		return leafScript, nil, nil
	}
	var prp *uint64
	if pr, ok := f.Get(PR); ok {
		prp = &pr
	}
	s, predicated, err := procScript(as, cache, pi, f.LookupPC(IP), ip, prp, 0)
	if err != nil {
		return nil, pi, err
	}
	if !predicated && s != leafScript {
		scripts.In(cache).Put(ip, s)
	}
	return s, pi, nil
}

// procScript is the script at ip (looked up as lookup) of the procedure
// pi describes: an unwind table entry, or registered dynamic info
// (dynamic.go). predicated says the result depends on the frame's
// predicates pr. depth counts ALIAS operations followed so far.
func procScript(as unwind.AddrSpace, cache *unwind.Cache, pi *unwind.ProcInfo, lookup, ip uint64, pr *uint64, depth int) (s *script, predicated bool, err error) {
	switch pi.Format {
	case unwind.FormatUnwindTable:
	case unwind.FormatDynamic, unwind.FormatTable, unwind.FormatRemoteTable:
		return dynamicScript(as, cache, pi, lookup, ip, pr, depth)
	default:
		return leafScript, false, nil
	}
	e, ok := pi.Info.(*unwtab.Entry)
	if !ok {
		return leafScript, false, nil
	}
	info, err := e.Info()
	if err != nil {
		return nil, false, fmt.Errorf("ia64 unwind info: %w", err)
	}
	return descriptorScript(info.Desc, pi.StartIP, ip, pr)
}

// descriptorScript runs an info block's descriptors to ip's slot in the
// procedure starting at start.
func descriptorScript(desc []byte, start, ip uint64, pr *uint64) (*script, bool, error) {
	recs, err := unwtab.Decode(desc)
	if err != nil && len(recs) == 0 {
		return nil, false, err
	}
	if ip < start {
		return nil, false, fmt.Errorf("ip %#x before its procedure %#x: %w", ip, start, unwind.ErrBadFrame)
	}
	sr, err := buildState(recs, whenTarget(ip, start), pr)
	if err != nil {
		return nil, false, err
	}
	return compile(sr), sr.predicated, nil
}

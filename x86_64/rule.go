package x86_64

import (
	"errors"
	"fmt"
	"math"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

type ruleKind uint8

const (
	ruleNone      ruleKind = iota // nothing known: fall back to heuristics
	ruleCFI                       // a CFI row
	ruleSigreturn                 // the rt_sigreturn trampoline, recognized by its code
)

// savedRegs are the registers a compact rule restores from save slots:
// the callee-saved registers that prologues push (psABI 3.2.1).
var savedRegs = [...]int{RBX, RBP, R12, R13, R14, R15}

// savedIndex is a register's index in savedRegs, -1 if it has none.
var savedIndex = func() (x [NumRegs]int8) {
	for i := range x {
		x[i] = -1
	}
	for i, r := range savedRegs {
		x[r] = int8(i)
	}
	return x
}()

// rule is what the unwinder knows about one lookup address, computed once
// and cached by value (framehop's "unwind rule"). A CFI row is kept in a
// compact form when it says only what compilers' prologues say: the CFA
// is a register plus an offset, the return address is saved at the CFA
// plus an offset, and each callee-saved register is either saved at the
// CFA plus an offset or unchanged. Stepping it reads at most seven words
// and allocates nothing. Any other row (expressions, a register saved in
// another register, another return-address column) is kept whole in
// full.
type rule struct {
	kind   ruleKind
	signal bool // CIE augmentation 'S': the frame is a signal trampoline
	// trust is the caller frame's trust when it is not plain CFI (rules
	// built from dynamic unwind info are TrustDynamic).
	trust unwind.Trust

	// The compact form (kind ruleCFI, full nil): CFA = cfaReg + cfaOff;
	// the return address at CFA+raOff; savedRegs[i] at CFA+slot[i] when
	// bit i of saved is set, else the callee's. The span bytes from
	// CFA+lo hold every slot: one read when span is small.
	cfaReg uint8
	saved  uint8
	cfaOff int32
	raOff  int32
	slot   [len(savedRegs)]int32
	lo     int32
	span   int32

	full *fullRule
	err  error // why there is no CFI rule, for the report
}

// fullRule is a CFI row the compact form cannot hold.
type fullRule struct {
	row   cfi.Row
	raCol uint64
}

// rules is the x86-64 rule table of each unwind.Cache.
var rules = unwind.NewRuleKind[rule]()

// ruleFor returns the rule for lookup address lpc (pc is the frame's PC,
// used to recognize the trampoline by its code).
func ruleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) rule {
	rc := rules.In(cache)
	if r, ok := rc.Get(lpc); ok {
		return r
	}
	r := computeRule(as, cache, lpc, pc)
	rc.Put(lpc, r)
	return r
}

func computeRule(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) rule {
	pi, err := cache.FindProcInfo(as, lpc)
	if err == nil && (pi.Format == unwind.FormatDynamic || pi.Format == unwind.FormatTable || pi.Format == unwind.FormatRemoteTable) {
		r, derr := dynamicRule(as, cache, pi, lpc, 0)
		if derr == nil {
			return *r
		}
		err = derr
	} else if err == nil {
		if fde, ok := pi.Info.(*cfi.FDE); ok && pi.Format == unwind.FormatCFI {
			// Read only (cfiRule, stepFull): the FDE's shared row.
			row, rerr := fde.RowAtShared(lpc - pi.Bias)
			if rerr == nil {
				return cfiRule(row, fde.CIE.Signal, fde.CIE.RAColumn, unwind.TrustNone)
			}
			err = fmt.Errorf("CFI at %#x: %w", lpc, rerr)
		} else {
			err = fmt.Errorf("pc %#x: unwind info format %v: %w", lpc, pi.Format, errNoCFI)
		}
	} else if errors.Is(err, unwind.ErrNoInfo) {
		err = fmt.Errorf("no CFI for pc %#x: %w", lpc, unwind.ErrNoInfo)
	}
	if isSigreturn(as, pc) {
		return rule{kind: ruleSigreturn}
	}
	return rule{kind: ruleNone, err: err}
}

// cfiRule is the rule of a CFI row: compact when the row allows.
func cfiRule(row cfi.Row, signal bool, raCol uint64, trust unwind.Trust) rule {
	r := rule{kind: ruleCFI, signal: signal, trust: trust}
	if r.compact(&row, raCol) {
		return r
	}
	f := &fullRule{row: row, raCol: raCol}
	return rule{kind: ruleCFI, signal: signal, trust: trust, full: f}
}

// compact fills r's compact form from row and reports whether the row
// fits it, that is whether stepping the compact form computes the caller
// stepFull would.
func (r *rule) compact(row *cfi.Row, raCol uint64) bool {
	if raCol != RIP || row.CFA.Expr != nil || row.CFA.Reg >= RIP || !fits32(row.CFA.Offset) {
		return false
	}
	ra := row.Rule(RIP)
	if ra.Kind != cfi.Offset || !fits32(ra.Offset) {
		return false
	}
	r.cfaReg, r.cfaOff, r.raOff = uint8(row.CFA.Reg), int32(row.CFA.Offset), int32(ra.Offset)
	lo, hi := ra.Offset, ra.Offset
	for reg := 0; reg < RIP && reg < len(row.Regs); reg++ {
		rl := row.Regs[reg]
		i := savedIndex[reg]
		switch {
		case i >= 0 && (rl.Kind == cfi.Unspecified || rl.Kind == cfi.SameValue):
			// The callee's value.
		case i >= 0 && rl.Kind == cfi.Offset && fits32(rl.Offset):
			r.saved |= 1 << i
			r.slot[i] = int32(rl.Offset)
			lo, hi = min(lo, rl.Offset), max(hi, rl.Offset)
		case i < 0 && (rl.Kind == cfi.Unspecified || rl.Kind == cfi.Undefined):
			// Not known in the caller; rsp is the CFA either way.
		default:
			return false
		}
	}
	r.lo, r.span = int32(lo), int32(min(hi-lo+8, math.MaxInt32))
	return true
}

func fits32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

package x86_64

import (
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

type ruleKind uint8

const (
	ruleNone      ruleKind = iota // nothing known: fall back to heuristics
	ruleCFI                       // a CFI row
	ruleSigreturn                 // the rt_sigreturn trampoline, recognized by its code
)

// rule is what the unwinder knows about one lookup address, computed once
// and cached (framehop's "unwind rule").
type rule struct {
	kind   ruleKind
	row    cfi.Row
	signal bool // CIE augmentation 'S': the frame is a signal trampoline
	raCol  uint64
	err    error // why there is no CFI rule, for the report
	// trust is the caller frame's trust when it is not plain CFI (rules
	// built from dynamic unwind info are TrustDynamic).
	trust unwind.Trust
}

// ruleFor returns the rule for lookup address lpc (pc is the frame's PC,
// used to recognize the trampoline by its code).
func ruleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *rule {
	if v, ok := cache.Rule(lpc); ok {
		return v.(*rule)
	}
	r := computeRule(as, cache, lpc, pc)
	cache.PutRule(lpc, r)
	return r
}

func computeRule(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *rule {
	pi, err := cache.FindProcInfo(as, lpc)
	if err == nil && (pi.Format == unwind.FormatDynamic || pi.Format == unwind.FormatTable || pi.Format == unwind.FormatRemoteTable) {
		r, derr := dynamicRule(as, cache, pi, lpc, 0)
		if derr == nil {
			return r
		}
		err = derr
	} else if err == nil {
		if fde, ok := pi.Info.(*cfi.FDE); ok && pi.Format == unwind.FormatCFI {
			row, rerr := fde.RowAt(lpc - pi.Bias)
			if rerr == nil {
				return &rule{kind: ruleCFI, row: row, signal: fde.CIE.Signal, raCol: fde.CIE.RAColumn}
			}
			err = fmt.Errorf("CFI at %#x: %w", lpc, rerr)
		} else {
			err = fmt.Errorf("pc %#x: unwind info format %v: %w", lpc, pi.Format, errNoCFI)
		}
	} else if errors.Is(err, unwind.ErrNoInfo) {
		err = fmt.Errorf("no CFI for pc %#x: %w", lpc, unwind.ErrNoInfo)
	}
	if isSigreturn(as, pc) {
		return &rule{kind: ruleSigreturn}
	}
	return &rule{kind: ruleNone, err: err}
}

package riscv64

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
// and cached.
type rule struct {
	kind   ruleKind
	row    cfi.Row
	signal bool // CIE augmentation 'S': the frame is a signal trampoline
	raCol  uint64
	err    error // why there is no CFI rule, for the report
}

// errNoCFI: the address has unwind info, but not DWARF CFI.
var errNoCFI = errors.New("no CFI")

// ruleFor returns the rule for lookup address lpc (pc is the frame's PC,
// used to recognize the trampoline by its code).
func ruleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *rule {
	rc := rules.In(cache)
	if r, ok := rc.Get(lpc); ok {
		return r
	}
	r := computeRule(as, cache, lpc, pc)
	rc.Put(lpc, r)
	return r
}

// rules is this arch's rule table in each unwind.Cache.
var rules = unwind.NewRuleKind[*rule]()

// computeRule looks at the code first: the sigreturn trampoline is
// unwound from the signal context the kernel saved, which holds every
// register, even where it has CFI (the vDSO's __vdso_rt_sigreturn has a
// CIE with the 'S' augmentation but its rows restore nothing).
func computeRule(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *rule {
	if isSigreturn(as, pc) {
		return &rule{kind: ruleSigreturn}
	}
	pi, err := cache.FindProcInfo(as, lpc)
	switch {
	case err == nil && pi.Format == unwind.FormatCFI:
		fde, ok := pi.Info.(*cfi.FDE)
		if !ok {
			err = fmt.Errorf("pc %#x: CFI proc info carries %T: %w", lpc, pi.Info, errNoCFI)
			break
		}
		row, rerr := fde.RowAt(lpc - pi.Bias)
		if rerr == nil {
			return &rule{kind: ruleCFI, row: row, signal: fde.CIE.Signal, raCol: fde.CIE.RAColumn}
		}
		err = fmt.Errorf("CFI at %#x: %w", lpc, rerr)
	case err == nil:
		// libunwind's dynamic unwind info (JIT code) is modelled for
		// x86-64 and IA-64 only; its riscv64 operations are not decoded.
		err = fmt.Errorf("pc %#x: unwind info format %v is not decoded for riscv64: %w", lpc, pi.Format, unwind.ErrNoInfo)
	case errors.Is(err, unwind.ErrNoInfo):
		err = fmt.Errorf("no CFI for pc %#x: %w", lpc, unwind.ErrNoInfo)
	}
	return &rule{kind: ruleNone, err: err}
}

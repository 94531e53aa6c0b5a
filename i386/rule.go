package i386

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
	ruleSigreturn                 // a sigreturn trampoline, recognized by its code
)

// rule is what the unwinder knows about one lookup address, computed once
// and cached (framehop's "unwind rule").
type rule struct {
	kind   ruleKind
	row    cfi.Row
	signal bool // CIE augmentation 'S': the frame is a signal trampoline
	raCol  uint64
	tramp  trampoline // ruleSigreturn: which frame the kernel built
	err    error      // why there is no CFI rule, for the report
}

var errNoCFI = errors.New("no CFI")

// ruleFor returns the rule for lookup address lpc (pc is the frame's PC,
// used to recognize a trampoline by its code).
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

func computeRule(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *rule {
	pi, err := cache.FindProcInfo(as, lpc)
	if err == nil {
		if fde, ok := pi.Info.(*cfi.FDE); ok && pi.Format == unwind.FormatCFI {
			row, rerr := fde.RowAt(lpc - pi.Bias)
			if rerr == nil {
				return &rule{kind: ruleCFI, row: row, signal: fde.CIE.Signal, raCol: fde.CIE.RAColumn}
			}
			err = fmt.Errorf("CFI at %#x: %w", lpc, rerr)
		} else {
			// libunwind's dynamic registrations (JIT code) are decoded
			// on x86_64, IA-64 and PA-RISC only.
			err = fmt.Errorf("pc %#x: unwind info format %v is not decoded on i386: %w", lpc, pi.Format, errNoCFI)
		}
	} else if errors.Is(err, unwind.ErrNoInfo) {
		err = fmt.Errorf("no CFI for pc %#x: %w", lpc, unwind.ErrNoInfo)
	}
	if t := trampolineAt(as, pc); t != notTrampoline {
		return &rule{kind: ruleSigreturn, tramp: t}
	}
	return &rule{kind: ruleNone, err: err}
}

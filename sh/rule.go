package sh

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// ruleFor is the rule for lookup address lpc (unwind/cfirow: a sigreturn
// trampoline's code first, then CFI); pc is the frame's PC.
func ruleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *cfirow.Rule {
	return cfirow.RuleFor(as, cache, lpc, pc, "sh", trampolineKind)
}

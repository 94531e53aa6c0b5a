package loong64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// ruleFor is the rule for lookup address lpc (unwind/cfirow: the
// rt_sigreturn trampoline's code first, then CFI); pc is the frame's PC.
func ruleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *cfirow.Rule {
	return cfirow.RuleFor(as, cache, lpc, pc, "loongarch64", sigreturnKind)
}

// sigreturnKind is isSigreturn as a cfirow.Trampoline.
func sigreturnKind(as unwind.AddrSpace, pc uint64) cfirow.Kind {
	if isSigreturn(as, pc) {
		return cfirow.KindTrampoline
	}
	return cfirow.KindNone
}

package s390x

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// ruleFor is the rule for lookup address lpc (unwind/cfirow: the
// trampolines' code first, then CFI); pc is the frame's PC.
func (l *layout) ruleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *cfirow.Rule {
	return cfirow.RuleFor(as, cache, lpc, pc, l.name, trampolineAt)
}

// The trampolines trampolineAt recognizes.
const (
	ruleSigreturn   = cfirow.KindTrampoline     // sigreturn (svc 119)
	ruleRTSigreturn = cfirow.KindTrampoline + 1 // rt_sigreturn (svc 173)
)

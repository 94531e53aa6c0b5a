package ppc64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// ruleFor is the rule for lookup address lpc (unwind/cfirow: the
// sigreturn trampolines' code first, then CFI); pc is the frame's PC.
func (l *layout) ruleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *cfirow.Rule {
	return cfirow.RuleFor(as, cache, lpc, pc, l.name, l.sigreturnKind)
}

// The trampolines sigreturnKind recognizes.
const (
	ruleRTSigreturn = cfirow.KindTrampoline     // rt_sigreturn (li r0,172)
	ruleSigreturn   = cfirow.KindTrampoline + 1 // sigreturn (li r0,119): 32-bit only
)

// sigreturnKind says which trampoline's code is at pc, if any: a
// cfirow.Trampoline.
func (l *layout) sigreturnKind(as unwind.AddrSpace, pc uint64) cfirow.Kind {
	li, ok := l.sigreturnAt(as, pc)
	if !ok {
		return cfirow.KindNone
	}
	if insn, _ := readInsn(as, li); insn == insnLiR0Sigreturn32 {
		return ruleSigreturn
	}
	return ruleRTSigreturn
}

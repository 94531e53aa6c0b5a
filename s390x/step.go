package s390x

import (
	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// stepCFI applies a CFI row. The caller's PC is the value of the
// return-address column (r14 in every CIE gcc emits); a row without a
// rule for r14 (a leaf, a prologue) leaves it in r14. The caller's r15 is
// the row's rule for it when that gives a value (gcc saves r15 with stmg,
// or in f0 in a leaf), else CFA-160 (CFA-96): the ABI's definition of
// the CFA. 31-bit code's return address loses its address-mode bit. An
// undefined return address marks the outermost frame (_start,
// thread_start).
func (l *layout) stepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	cfa, raDefined, err := cfirow.Apply(as, &r.Row, r.RAColumn, l.cfiRegs(), callee, caller)
	if err != nil {
		return unwind.StepEnd, err
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	if _, ok := caller.Get(SP); !ok || r.Row.Rule(SP).Kind == cfi.Unspecified {
		caller.Set(SP, cfa-l.frameOffset, unwind.SaveLoc{Kind: unwind.LocValue})
	}
	ra, _ := caller.Get(int(r.RAColumn))
	caller.Set(PC, ra&l.addrMask, caller.Locs[r.RAColumn])
	cfirow.SetCaller(caller, cfa, r.Signal)
	return unwind.StepCaller, nil
}

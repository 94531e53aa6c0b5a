package ppc64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// stepCFI applies a CFI row. The caller's PC is the value of the
// return-address column (lr, 65, in every CIE gcc emits); its r1 is the
// CFA. A row without a rule for lr (a leaf, a prologue) leaves the return
// address in the link register. An undefined return address marks the
// outermost frame. The caller's r2 is then corrected where the call
// crossed modules (restoreTOC).
func (l *layout) stepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	cfa, raDefined, err := cfirow.Apply(as, &r.Row, r.RAColumn, l.cfiRegs(), callee, caller)
	if err != nil {
		return unwind.StepEnd, err
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	crWords(as, caller)
	ra, _ := caller.Get(int(r.RAColumn))
	if ra == 0 {
		// A null saved lr: the outermost frame (glibc's _start and
		// clone3 leave lr's save slot zero, as gdb's "0x0 ??" frame at
		// the end of the main thread shows).
		return unwind.StepEnd, nil
	}
	caller.Set(PC, ra, caller.Locs[r.RAColumn])
	cfirow.SetCaller(caller, cfa, r.Signal)
	if !r.Signal { // an interrupted caller's r2 is in the signal context
		l.restoreTOC(as, caller)
	}
	return unwind.StepCaller, nil
}

// crWords rereads the condition-register fields a row restored from
// memory as the 32-bit word they are: gcc saves cr2–cr4 with one "stw"
// of the whole CR at 8 of the caller's frame and names that word in each
// field's column, while a CFI rule reads a doubleword (whose other half
// is a reserved word, above or below the CR by byte order).
func crWords(as unwind.AddrSpace, caller *unwind.Frame) {
	for r := CR0; r < CR0+8; r++ {
		if _, ok := caller.Get(r); !ok || caller.Locs[r].Kind != unwind.LocMem {
			continue
		}
		if w, err := cfirow.ReadSized(as, caller.Locs[r].Addr, 4); err == nil {
			caller.Set(r, w, caller.Locs[r])
		}
	}
}

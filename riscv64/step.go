package riscv64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// cfiRegs is what applying a CFI row needs of the RISC-V register file.
var cfiRegs = cfirow.Regs{N: NumRegs, SP: SP, Preserved: preserved, Name: RegName, Word: 8}

// stepCFI applies a CFI row. The caller's PC is the value of the
// return-address column (ra in every CIE gcc and clang emit); its sp is
// the CFA. A row without a rule for ra (a leaf, a prologue) leaves the
// return address in ra. An undefined return address marks the outermost
// frame (_start, the clone child).
func stepCFI(as unwind.AddrSpace, r *cfirow.Rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	cfa, raDefined, err := cfirow.Apply(as, &r.Row, r.RAColumn, cfiRegs, callee, caller)
	if err != nil {
		return unwind.StepEnd, err
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	ra, _ := caller.Get(int(r.RAColumn))
	if ra == 0 {
		// glibc's riscv _start and thread entry clear ra before their
		// first call: a zero return address ends the stack.
		return unwind.StepEnd, nil
	}
	caller.Set(PC, ra, caller.Locs[r.RAColumn])
	caller.Set(X0, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	cfirow.SetCaller(caller, cfa, r.Signal)
	return unwind.StepCaller, nil
}

package arm

import (
	"fmt"
	"math/bits"

	"github.com/coreunwind/coreunwind/arm/exidx"
	"github.com/coreunwind/coreunwind/unwind"
)

// stepExidx executes an entry's unwind opcodes on the virtual register
// set (EHABI §9.3): vsp starts as the callee's sp; pops load core
// registers from the stack and skip VFP and iWMMXt ones; "finish" ends
// the program, and the caller's pc is what was popped into r15, else lr.
// The caller's sp is vsp (or the popped r13). A return address of zero
// ends the stack, as libgcc's unwinder stops there.
func stepExidx(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	vsp, ok := callee.Get(SP)
	if !ok {
		return unwind.StepEnd, fmt.Errorf("exidx: %w: sp", unwind.ErrNoReg)
	}
	var regs [16]uint64
	var locs [16]unwind.SaveLoc
	var known [16]bool
	for i := range regs {
		regs[i], known[i] = callee.Get(i)
		locs[i] = callee.Locs[i]
	}
	pcSet := false
	for _, op := range r.ops {
		switch op.Kind {
		case exidx.OpVSPAdd:
			vsp += uint64(op.Value)
		case exidx.OpVSPSub:
			vsp -= uint64(op.Value)
		case exidx.OpVSPReg:
			if !known[op.Reg] {
				return unwind.StepEnd, fmt.Errorf("exidx: vsp = %s: %w", RegName(uint64(op.Reg)), unwind.ErrNoReg)
			}
			vsp = regs[op.Reg]
		case exidx.OpPopMask:
			spPopped := false
			for reg := 0; reg < 16; reg++ {
				if op.Mask&(1<<reg) == 0 {
					continue
				}
				v, err := readWord(as, vsp)
				if err != nil {
					return unwind.StepEnd, fmt.Errorf("exidx: pop %s at %#x: %w", RegName(uint64(reg)), vsp, err)
				}
				regs[reg], known[reg], locs[reg] = v, true, unwind.SaveLoc{Kind: unwind.LocMem, Addr: vsp}
				vsp += 4
				pcSet = pcSet || reg == PC
				spPopped = spPopped || reg == SP
			}
			if spPopped { // EHABI: popping r13 sets vsp to the loaded value
				vsp = regs[SP]
			}
		case exidx.OpPopVFPX:
			vsp += 8*uint64(op.Count) + 4
		case exidx.OpPopVFPD, exidx.OpPopWR:
			vsp += 8 * uint64(op.Count)
		case exidx.OpPopWCGR:
			vsp += 4 * uint64(bits.OnesCount16(op.Mask))
		case exidx.OpPopRAAuth:
			vsp += 4
		case exidx.OpFinish:
			return finishExidx(callee, caller, regs, locs, known, vsp, pcSet)
		case exidx.OpRefuse:
			return unwind.StepEnd, fmt.Errorf("exidx: refuse to unwind")
		default:
			return unwind.StepEnd, fmt.Errorf("exidx: opcode %s: %w", op, unwind.ErrBadFrame)
		}
		vsp &= 0xffffffff
	}
	// Running out of opcodes is an implicit finish.
	return finishExidx(callee, caller, regs, locs, known, vsp, pcSet)
}

// finishExidx builds the caller from the virtual register set.
func finishExidx(callee, caller *unwind.Frame, regs [16]uint64, locs [16]unwind.SaveLoc, known [16]bool, vsp uint64, pcSet bool) (unwind.StepResult, error) {
	ra, raLoc, ok := regs[LR], locs[LR], known[LR]
	if pcSet {
		ra, raLoc, ok = regs[PC], locs[PC], known[PC]
	}
	if !ok {
		return unwind.StepEnd, fmt.Errorf("exidx: %w: return address", unwind.ErrNoReg)
	}
	if ra == 0 {
		return unwind.StepEnd, nil
	}
	for reg := 0; reg < 16; reg++ {
		if known[reg] && reg != PC && (preserved(reg) || locs[reg].Kind == unwind.LocMem) {
			caller.Set(reg, regs[reg], locs[reg])
		}
	}
	caller.Set(SP, vsp, unwind.SaveLoc{Kind: unwind.LocValue})
	setReturn(callee, caller, ra, raLoc)
	caller.CFA, caller.HasCFA = vsp, true
	caller.Trust = unwind.TrustUnwindTable
	return unwind.StepCaller, nil
}

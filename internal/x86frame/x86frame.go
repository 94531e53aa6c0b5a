// Package x86frame holds the unwinding heuristics that x86-64 and i386
// share for code without CFI: the call-instruction check before a
// candidate return address, the frame-pointer chain, the call through a
// wild pointer, and the stack scan. The two ABIs differ only in word
// size and register numbers, which Regs carries; the instruction
// encodings of call (e8 rel32, ff /2) have the same lengths in 32- and
// 64-bit code.
package x86frame

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// Regs names an ABI's registers in its DWARF numbering.
type Regs struct {
	PC, SP, FP int
	// Word is the size of a return address and a saved frame pointer.
	Word uint64
	// Saved are the callee-saved registers besides the frame pointer: a
	// frame found without CFI keeps the callee's values.
	Saved []int
	// NumRegs is the size of the register file.
	NumRegs int
}

func (r *Regs) read(as unwind.AddrSpace, addr uint64) (uint64, error) {
	return cfirow.ReadSized(as, addr, int(r.Word))
}

// StepFramePointer follows the frame-pointer chain: the caller's PC is at
// fp+Word, its frame pointer at fp, its stack pointer just above them.
// It is used where there is no CFI, so everything is checked: fp aligned
// and above sp, the return address in code, the stack moving toward
// older frames.
func StepFramePointer(as unwind.AddrSpace, r *Regs, callee, caller *unwind.Frame) bool {
	fp, ok1 := callee.Get(r.FP)
	sp, ok2 := callee.Get(r.SP)
	if !ok1 || !ok2 || fp == 0 || fp%r.Word != 0 || fp < sp || fp-sp > stackscan.MaxFrameSize {
		return false
	}
	savedFP, err1 := r.read(as, fp)
	ra, err2 := r.read(as, fp+r.Word)
	if err1 != nil || err2 != nil || ra == 0 || !stackscan.IsCode(as, ra) {
		return false
	}
	// The next frame pointer must lie in an older frame; anything else
	// is not a frame-pointer chain (or the end of one).
	chains := savedFP > fp && savedFP%r.Word == 0 && savedFP-fp <= stackscan.MaxFrameSize
	// A frame record is believed when its return address follows a call,
	// or when the chain goes on plausibly: code that enters frames by
	// jumps (HotSpot's interpreter returns through addresses that follow
	// a jmp) still keeps the chain intact, and eu-stack follows it.
	if !chains && !AfterCall(as, ra) {
		return false
	}
	caller.Set(r.PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp + r.Word})
	caller.Set(r.SP, fp+2*r.Word, unwind.SaveLoc{Kind: unwind.LocValue})
	if chains || savedFP == 0 {
		// A saved zero is the end of the chain that thread entry points
		// start (they clear the frame pointer); any other value that
		// does not chain is not known to be a frame pointer.
		caller.Set(r.FP, savedFP, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp})
	}
	r.keepSaved(callee, caller)
	caller.CFA, caller.HasCFA = fp+2*r.Word, true
	caller.Trust = unwind.TrustFramePointer
	return true
}

func (r *Regs) keepSaved(callee, caller *unwind.Frame) {
	for _, reg := range r.Saved {
		if v, ok := callee.Get(reg); ok {
			caller.Set(reg, v, callee.Locs[reg])
		}
	}
}

// StepBadCall recovers the caller of a frame whose pc is not code: a
// call through a null or wild function pointer. The call pushed its
// return address and nothing ran since, so the caller's pc is at sp and
// its registers are the callee's (gdb makes the same assumption). The
// frame pointer still belongs to the caller, so following it would skip
// the caller. The return address must follow a call instruction: a
// corrupted stack that "returned" into garbage gets no such frame.
func StepBadCall(as unwind.AddrSpace, r *Regs, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(r.SP)
	if !ok {
		return false
	}
	ra, err := r.read(as, sp)
	if err != nil || !stackscan.IsCode(as, ra) || !AfterCall(as, ra) {
		return false
	}
	for reg := 0; reg < r.NumRegs; reg++ {
		if v, ok := callee.Get(reg); ok && reg != r.PC && reg != r.SP {
			caller.Set(reg, v, callee.Locs[reg])
		}
	}
	caller.Set(r.PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: sp})
	caller.Set(r.SP, sp+r.Word, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.CFA, caller.HasCFA = sp+r.Word, true
	caller.Trust = unwind.TrustScan
	return true
}

// StepScan looks for the first word above the stack pointer that points
// into code just after a call instruction, the way minidump-stackwalk
// recovers frames with no other information. The slot at sp is tried as
// well (a crash right after a call or in a frameless leaf).
func StepScan(as unwind.AddrSpace, r *Regs, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(r.SP)
	if !ok {
		return false
	}
	slot, ra, found := stackscan.Find(as, sp, func(w uint64) (uint64, bool) {
		return w, w >= 0x1000 && stackscan.IsCode(as, w) && AfterCall(as, w)
	})
	if !found {
		return false
	}
	caller.Set(r.PC, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
	caller.Set(r.SP, slot+r.Word, unwind.SaveLoc{Kind: unwind.LocValue})
	// A frame-pointer prologue pushes the frame pointer just below the
	// return address: if the callee's points at that slot, recover the
	// caller's.
	if fp, ok := callee.Get(r.FP); ok && fp == slot-r.Word {
		if v, err := r.read(as, fp); err == nil {
			caller.Set(r.FP, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp})
		}
	} else if ok {
		caller.Set(r.FP, fp, callee.Locs[r.FP])
	}
	caller.CFA, caller.HasCFA = slot+r.Word, true
	caller.Trust = unwind.TrustScan
	return true
}

// AfterCall reports whether the bytes before ra end with a call
// instruction: call rel32 (e8), or an indirect call (ff /2) through a
// register or memory operand in any of its encodings up to 8 bytes
// (prefixes, REX on x86-64 or a segment override such as i386 glibc's
// call *%gs:0x10, may precede it).
func AfterCall(as unwind.AddrSpace, ra uint64) bool {
	var b [8]byte
	if ra < 8 || as.ReadMem(ra-8, b[:]) != nil {
		return false
	}
	if b[3] == 0xe8 { // e8 rel32: 5 bytes
		return true
	}
	// ff /2 with ModRM at b[k+1]; the instruction length decides where
	// the ModRM byte must sit.
	for k := 0; k <= 6; k++ {
		if b[k] != 0xff {
			continue
		}
		modrm := b[k+1]
		if modrm&0x38 != 0x10 {
			continue
		}
		if callLen(modrm, b[k+2:]) == 8-k {
			return true
		}
	}
	return false
}

// callLen is the length of "ff /2" with the given ModRM and following
// bytes (rest starts at the SIB byte, if any). The lengths are the same
// in 32- and 64-bit code: mod 0 with rm 5 is a 32-bit displacement,
// absolute in one and rip-relative in the other.
func callLen(modrm byte, rest []byte) int {
	mod, rm := modrm>>6, modrm&7
	n := 2
	if mod != 3 && rm == 4 { // SIB
		n++
		if mod == 0 && len(rest) > 0 && rest[0]&7 == 5 {
			n += 4
		}
	}
	switch mod {
	case 0:
		if rm == 5 {
			n += 4
		}
	case 1:
		n++
	case 2:
		n += 4
	}
	return n
}

// Fallback finds callee's caller where unwind info and trampolines did
// not, trying in order: a call through a wild pointer (an exact pc
// outside code), the frame-pointer chain, the end of the stack (a zero
// frame pointer where there is no unwind info: _start and thread entry
// points clear it), the stack scan. The end comes before the scan:
// above an entry point without CFI (older static glibcs' _start) lie
// stale return addresses a scan would take for callers. noInfo says
// there was no unwind info at all; why is what the unwind info said
// instead of a caller (nil: nothing).
//
// An exact pc in code whose bytes the address space does not hold (a
// minidump's linux-gate: the vDSO is in no file, and Breakpad does not
// dump it) was interrupted in a function nobody can see: whether it set
// up a frame pointer is unknown, and i386's __kernel_vsyscall, where
// every thread blocked in a system call sits, pushes ecx, edx and ebp
// and keeps its caller's ebp, so the chain skips the caller. There the
// validated scan goes before the frame pointer.
func Fallback(as unwind.AddrSpace, r *Regs, callee, caller *unwind.Frame, noInfo bool, why error) (unwind.StepResult, error) {
	pc, _ := callee.Get(r.PC)
	caller.Reset()
	if callee.ExactPC && !stackscan.IsCode(as, pc) && StepBadCall(as, r, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if callee.ExactPC && unseenCode(as, pc) && StepScan(as, r, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if StepFramePointer(as, r, callee, caller) {
		return unwind.StepCaller, nil
	}
	caller.Reset()
	if fp, ok := callee.Get(r.FP); ok && fp == 0 && noInfo {
		return unwind.StepEnd, nil
	}
	if StepScan(as, r, callee, caller) {
		return unwind.StepCaller, nil
	}
	if why == nil {
		why = unwind.ErrNoInfo
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (frame pointer and stack scan found no caller)", pc, why)
}

// unseenCode reports whether pc lies in code whose bytes cannot be read.
func unseenCode(as unwind.AddrSpace, pc uint64) bool {
	var b [1]byte
	return stackscan.IsCode(as, pc) && as.ReadMem(pc, b[:]) != nil
}

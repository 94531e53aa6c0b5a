package sh

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// prologue is what the instructions from a function's start up to a pc
// say about its frame, for code without CFI (gdb's sh_analyze_prologue
// reads the same shapes). gcc pushes the callee-saved registers it uses
// and pr ("mov.l rN,@-r15", "sts.l pr,@-r15"), lowers r15 ("add
// #-n,r15", or "sub rM,r15" with rM loaded by mov/mov.w/mov.l from a
// constant), and with a frame pointer copies r15 to r14 ("mov r15,r14").
// Offsets are from the stack pointer at the function's entry (the
// caller's, the CFA): every one is negative.
type prologue struct {
	sp      int64 // r15 at the pc, from the entry's
	fp      int64 // r14 from the entry's r15, when fpSet
	fpSet   bool
	saved   [16]int64 // where rN was pushed, when pushed[N]
	pushed  [16]bool
	prOff   int64
	prSaved bool
}

// maxPrologueInsns bounds the instructions decoded from a function's
// start.
const maxPrologueInsns = 64

// readPrologue decodes the prologue of the function holding frame f's
// pc (its start from the symbol table), stopping at the pc or after
// maxPrologueInsns. ok is false when the function's start is unknown,
// or the decoded code neither moved r15 nor saved pr.
func readPrologue(as unwind.AddrSpace, f *unwind.Frame) (p prologue, ok bool) {
	pc, _ := f.Get(PC)
	lpc := f.LookupPC(PC)
	_, off, err := as.ProcName(lpc)
	if err != nil || off > lpc || off > 1<<20 {
		return p, false
	}
	start := lpc - off
	var consts [16]int64
	var known [16]bool
	for addr := start; addr < pc && addr < start+maxPrologueInsns*2; addr += 2 {
		insn, ok := readHalf(as, addr)
		if !ok {
			break
		}
		n, m := int(insn>>8&0xf), int(insn>>4&0xf)
		switch {
		case insn&0xff0f == 0x2f06: // mov.l rM,@-r15
			p.sp -= 4
			if !p.pushed[m] {
				p.saved[m], p.pushed[m] = p.sp, true
			}
		case insn == 0x4f22: // sts.l pr,@-r15
			p.sp -= 4
			if !p.prSaved {
				p.prOff, p.prSaved = p.sp, true
			}
		case insn == 0x4f02, insn == 0x4f12, insn&0xff0f == 0xff0b: // sts.l mach/macl,@-r15; fmov.s frM,@-r15
			p.sp -= 4
		case insn&0xff00 == 0x7f00: // add #imm,r15
			p.sp += int64(int8(insn))
		case insn&0xff0f == 0x3f08 && known[m]: // sub rM,r15
			p.sp -= consts[m]
		case insn&0xff0f == 0x3f0c && known[m]: // add rM,r15
			p.sp += consts[m]
		case insn == 0x6ef3: // mov r15,r14
			p.fp, p.fpSet = p.sp, true
		case insn&0xf000 == 0xe000: // mov #imm,rN
			consts[n], known[n] = int64(int8(insn)), true
		case insn&0xf000 == 0x9000: // mov.w @(disp,pc),rN
			v, ok := readHalf(as, addr+4+2*uint64(insn&0xff))
			consts[n], known[n] = int64(int16(v)), ok
		case insn&0xf000 == 0xd000: // mov.l @(disp,pc),rN
			v, err := readWord(as, (addr&^3)+4+4*uint64(insn&0xff))
			consts[n], known[n] = int64(int32(v)), err == nil
		}
	}
	return p, p.sp != 0 || p.prSaved
}

// stepPrologue finds the caller from the decoded prologue: its r15 (the
// CFA) from r14 where the frame pointer is set, else from r15; pr from
// its slot (or, in an interrupted frame that has not saved it yet,
// still in pr); r8–r14 from their slots. The return address must follow
// a call.
func stepPrologue(as unwind.AddrSpace, p prologue, callee, caller *unwind.Frame) bool {
	base, off, ok := uint64(0), p.sp, false
	if p.fpSet {
		base, ok = callee.Get(FP)
		off = p.fp
	} else {
		base, ok = callee.Get(SP)
	}
	if !ok {
		return false
	}
	cfa := uint32(int64(base) - off)
	at := func(o int64) uint64 { return uint64(uint32(int64(cfa) + o)) }
	ra, raLoc := uint64(0), unwind.SaveLoc{}
	switch {
	case p.prSaved:
		v, err := readWord(as, at(p.prOff))
		if err != nil {
			return false
		}
		ra, raLoc = v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: at(p.prOff)}
	case callee.ExactPC:
		ra, _ = callee.Get(PR)
		raLoc = unwind.SaveLoc{Kind: unwind.LocReg, Reg: PR}
	default:
		return false
	}
	if ra == 0 || !stackscan.IsCode(as, ra) || !afterCall(as, ra) {
		return false
	}
	keepCalleeSaved(callee, caller)
	for r := 8; r < SP; r++ {
		if !p.pushed[r] {
			continue
		}
		if v, err := readWord(as, at(p.saved[r])); err == nil {
			caller.Set(r, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: at(p.saved[r])})
		}
	}
	caller.Set(PC, ra, raLoc)
	caller.Set(PR, ra, raLoc)
	caller.Set(SP, uint64(cfa), unwind.SaveLoc{Kind: unwind.LocValue})
	caller.CFA, caller.HasCFA = uint64(cfa), true
	caller.Trust = unwind.TrustScan
	return true
}

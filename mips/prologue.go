package mips

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// prologue is what the instructions from a function's start up to a pc
// say about its frame, for code without CFI (gdb's mips_find_prologue
// reads the same shapes): gcc lowers sp by "addiu sp,sp,-n" (o32) or
// "daddiu sp,sp,-n" (n64), saves ra and s8 by "sw"/"sd" into the new
// frame, and with a frame pointer copies sp to s8 ("move s8,sp"), after
// which sp may move again (alloca). Offsets are from the sp after the
// adjustment, which s8 keeps when fpSet.
type prologue struct {
	size         uint64 // bytes the function has taken off sp so far
	raOff, fpOff int64
	raSaved      bool
	fpSaved      bool
	fpSet        bool // s8 = sp after the adjustment
}

// maxPrologueInsns bounds the instructions decoded from a function's
// start (gcc's PIC prologues set up gp first, and -O2 code may save ra
// after a few argument moves).
const maxPrologueInsns = 48

// Instruction shapes (the immediate, rs=sp and rt fields): addiu and
// daddiu sp,sp; sw and sd of ra and s8 at an offset from sp; and the
// three spellings of "move s8,sp".
const (
	insnAddiuSP = 0x27bd0000
	insnDaddiuS = 0x67bd0000
	insnSwRA    = 0xafbf0000
	insnSdRA    = 0xffbf0000
	insnSwFP    = 0xafbe0000
	insnSdFP    = 0xffbe0000
	insnAdduFP  = 0x03a0f021
	insnDadduFP = 0x03a0f02d
	insnOrFP    = 0x03a0f025
)

// readPrologue decodes the prologue of the function holding frame f's pc
// (its start from the symbol table), stopping at the pc or after
// maxPrologueInsns. ok is false when the function's start is unknown,
// or the decoded code neither moved sp nor saved anything.
func (a Arch) readPrologue(as unwind.AddrSpace, f *unwind.Frame) (p prologue, ok bool) {
	pc, _ := f.Get(PC)
	lpc := f.LookupPC(PC)
	_, off, err := as.ProcName(lpc)
	if err != nil || off > lpc || off > 1<<20 {
		return p, false
	}
	start := lpc - off
	adjust := uint32(insnAddiuSP)
	swRA, swFP := uint32(insnSwRA), uint32(insnSwFP)
	if a.wide {
		adjust, swRA, swFP = insnDaddiuS, insnSdRA, insnSdFP
	}
	for addr := start; addr < pc && addr < start+maxPrologueInsns*4; addr += 4 {
		insn, ok := a.readInsn(as, addr)
		if !ok {
			break
		}
		imm := int64(int16(insn))
		switch insn & 0xffff0000 {
		case adjust:
			if imm < 0 && p.size == 0 {
				p.size = uint64(-imm)
			}
		case swRA:
			p.raOff, p.raSaved = imm, true
		case swFP:
			p.fpOff, p.fpSaved = imm, true
		}
		if insn == insnAdduFP || insn == insnDadduFP || insn == insnOrFP {
			p.fpSet = true
		}
	}
	return p, p.size > 0 || p.raSaved
}

// stepPrologue finds the caller from the decoded prologue: its sp is the
// frame's base plus the frame size, its ra from the save slot (or, in an
// interrupted frame that has not saved it yet, still in ra), its s8 from
// its slot. The return address must follow a call.
func (a Arch) stepPrologue(as unwind.AddrSpace, p prologue, callee, caller *unwind.Frame) bool {
	base, ok := callee.Get(SP)
	if p.fpSet {
		base, ok = callee.Get(FP)
	}
	if !ok {
		return false
	}
	ra, raLoc := uint64(0), unwind.SaveLoc{}
	switch {
	case p.raSaved:
		addr := a.narrow(base + uint64(p.raOff))
		v, err := a.readWord(as, addr)
		if err != nil {
			return false
		}
		ra, raLoc = v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}
	case callee.ExactPC:
		ra, _ = callee.Get(RA)
		raLoc = unwind.SaveLoc{Kind: unwind.LocReg, Reg: RA}
	default:
		return false
	}
	if ra == 0 || !stackscan.IsCode(as, ra) || !a.afterCall(as, ra) {
		return false
	}
	keepCalleeSaved(callee, caller)
	if p.fpSaved {
		addr := a.narrow(base + uint64(p.fpOff))
		if v, err := a.readWord(as, addr); err == nil {
			caller.Set(FP, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr})
		}
	}
	cfa := a.narrow(base + p.size)
	caller.Set(PC, ra, raLoc)
	caller.Set(RA, ra, raLoc)
	caller.Set(SP, cfa, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.CFA, caller.HasCFA = cfa, true
	caller.Trust = unwind.TrustScan
	return true
}

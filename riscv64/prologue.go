package riscv64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// prologue is what the instructions from a function's start up to a pc
// say about its frame, for code without CFI (gdb's riscv prologue
// analyzer reads the same shapes): gcc's "addi sp,sp,-n" (or c.addi16sp,
// c.addi), then "sd reg,off(sp)" (or c.sdsp) of ra, s0 and other
// callee-saved registers, then optionally "addi s0,sp,k" to set up the
// frame pointer.
type prologue struct {
	size  uint64         // n: bytes the function took off sp (0: none yet)
	saved map[int]uint64 // register -> offset of its save slot from the lowered sp
	fpOff uint64         // k of "addi s0,sp,k", when fpSet
	fpSet bool
}

// maxPrologue bounds the bytes of code decoded from a function's start.
const maxPrologue = 96

// readPrologue decodes the prologue of the function containing pc (its
// start from the symbol table), stopping at pc, at the first control
// transfer, or after maxPrologue bytes. ok is false when the function's
// start is unknown or its code unreadable.
func readPrologue(as unwind.AddrSpace, pc uint64) (p prologue, ok bool) {
	_, off, err := as.ProcName(pc)
	if err != nil || off > pc || off > 1<<20 {
		return p, false
	}
	start := pc - off
	p.saved = map[int]uint64{}
	for a := start; a < pc && a < start+maxPrologue; {
		var b [2]byte
		if as.ReadMem(a, b[:]) != nil {
			return p, a > start
		}
		c := uint32(b[0]) | uint32(b[1])<<8
		if c&3 != 3 { // a compressed (16-bit) instruction
			if !p.compressed(c) {
				return p, true
			}
			a += 2
			continue
		}
		insn, ok := readInsn(as, a)
		if !ok || !p.full(insn) {
			return p, true
		}
		a += 4
	}
	return p, true
}

// full applies one 32-bit instruction; false at a control transfer.
func (p *prologue) full(insn uint32) bool {
	imm12 := uint64(int64(int32(insn)) >> 20)
	switch {
	case insn&0x7f == 0x63, insn&0x7f == 0x6f, insn&0x7f == 0x67: // branch, jal, jalr
		return false
	case insn&0x000fffff == 0x00010113: // addi sp, sp, imm
		if p.size == 0 && int64(imm12) < 0 {
			p.size = -imm12
		}
	case insn&0x000ff07f == 0x00013023: // sd rs2, imm(sp)
		off := uint64(int64(int32(insn&0xfe000000|(insn>>7&0x1f)<<20)) >> 20)
		p.save(int(insn>>20&0x1f), off)
	case insn&0x000fffff == 0x00010413: // addi s0, sp, imm
		if p.size != 0 && !p.fpSet {
			p.fpOff, p.fpSet = imm12, true
		}
	}
	return true
}

// compressed applies one 16-bit instruction; false at a control transfer.
func (p *prologue) compressed(c uint32) bool {
	switch {
	case c&0xe003 == 0xa001, c&0xe003 == 0xc001, c&0xe003 == 0xe001: // c.j, c.beqz, c.bnez
		return false
	case c&0xf003 == 0x8002 && c>>2&0x1f == 0, c&0xf003 == 0x9002 && c>>2&0x1f == 0 && c>>7&0x1f != 0: // c.jr, c.jalr
		return false
	case c&0xef83 == 0x6101: // c.addi16sp
		imm := (c>>12&1)<<9 | (c>>6&1)<<4 | (c>>5&1)<<6 | (c>>3&3)<<7 | (c>>2&1)<<5
		v := int64(imm) << 54 >> 54
		if p.size == 0 && v < 0 {
			p.size = uint64(-v)
		}
	case c&0xef83 == 0x0101: // c.addi sp, imm
		v := int64((c>>12&1)<<5|c>>2&0x1f) << 58 >> 58
		if p.size == 0 && v < 0 {
			p.size = uint64(-v)
		}
	case c&0xe003 == 0xe002: // c.sdsp rs2, uimm(sp)
		p.save(int(c>>2&0x1f), uint64((c>>10&7)<<3|(c>>7&7)<<6))
	}
	return true
}

// save records the first store of a callee-saved register or ra into
// the new frame.
func (p *prologue) save(reg int, off uint64) {
	if p.size == 0 || off >= p.size || off%8 != 0 || !(reg == RA || preserved(reg)) || reg == SP {
		return
	}
	if _, dup := p.saved[reg]; !dup {
		p.saved[reg] = off
	}
}

// stepPrologue unwinds a frame without CFI by its decoded prologue: the
// caller's sp (the CFA) is sp+n (or, with a frame pointer set up, s0-k+n,
// which survives later sp changes such as alloca); saved registers are
// read from their slots; ra, when the prologue has not saved it yet (a
// leaf, or an interrupted frame still in its prologue), is still in the
// register, which only an interrupted frame may use.
func stepPrologue(as unwind.AddrSpace, p prologue, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok {
		return false
	}
	base := sp
	if p.fpSet {
		fp, ok := callee.Get(FP)
		if !ok || fp < p.fpOff {
			return false
		}
		base = fp - p.fpOff
	}
	cfa := base + p.size
	for r := 0; r < NumRegs; r++ {
		if v, ok := callee.Get(r); ok && preserved(r) && r != SP {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	for r, off := range p.saved {
		v, err := readWord(as, base+off)
		if err != nil {
			return false
		}
		caller.Set(r, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + off})
	}
	_, raSaved := p.saved[RA]
	if !raSaved && !callee.ExactPC {
		return false
	}
	ra, _ := caller.Get(RA)
	if ra == 0 || !stackscan.IsCode(as, ra) || (!afterCall(as, ra) && readable(as, ra-4)) {
		return false
	}
	caller.Set(PC, ra, caller.Locs[RA])
	caller.Set(SP, cfa, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.Set(X0, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.CFA, caller.HasCFA = cfa, true
	caller.Trust = unwind.TrustScan
	return true
}

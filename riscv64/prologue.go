package riscv64

import (
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// prologue is what the instructions from a function's start up to a pc
// say about its frame, for code without CFI (gdb's riscv prologue
// analyzer reads the same shapes). gcc lowers sp by "addi sp,sp,-n" (or
// c.addi16sp, c.addi), for frames over 2 KiB also by "add sp,sp,t0" (or
// "sub") with t0 loaded by lui/li/addi; saves ra, s0–s11 and fs0–fs11 by
// "sd"/"fsd" (or c.sdsp, c.fsdsp) into the new frame; and sets up the
// frame pointer by "addi s0,sp,k" (or c.addi4spn). Offsets are kept
// from the CFA (the sp at entry), which later sp changes do not move.
type prologue struct {
	size  uint64        // bytes the function has taken off sp so far
	saved map[int]int64 // register -> its save slot's offset from the CFA
	fpCFA uint64        // CFA = s0 + fpCFA, when fpSet
	fpSet bool
	known [32]bool // registers holding a constant the decoder tracked
	value [32]int64
}

// maxPrologue bounds the bytes of code decoded from a function's start.
const maxPrologue = 160

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
	p.saved = map[int]int64{}
	p.known[X0] = true
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
	rd, rs1, rs2 := int(insn>>7&0x1f), int(insn>>15&0x1f), int(insn>>20&0x1f)
	imm12 := int64(int32(insn)) >> 20
	storeImm := int64(int32(insn&0xfe000000|(insn>>7&0x1f)<<20)) >> 20
	switch {
	case insn&0x7f == 0x63, insn&0x7f == 0x6f, insn&0x7f == 0x67: // branch, jal, jalr
		return false
	case insn&0x707f == 0x0013: // addi rd, rs1, imm
		switch {
		case rd == SP && rs1 == SP:
			p.lowerSP(imm12)
		case rd == FP && rs1 == SP:
			p.setFP(imm12)
		default:
			p.setConst(rd, p.known[rs1], p.value[rs1]+imm12)
		}
	case insn&0x707f == 0x001b: // addiw rd, rs1, imm
		p.setConst(rd, p.known[rs1], int64(int32(p.value[rs1]+imm12)))
	case insn&0x7f == 0x37: // lui rd, imm
		p.setConst(rd, true, int64(int32(insn&0xfffff000)))
	case insn&0xfe0fffff == 0x00010133: // add sp, sp, rs2
		if p.known[rs2] {
			p.lowerSP(p.value[rs2])
		}
	case insn&0xfe0fffff == 0x40010133: // sub sp, sp, rs2
		if p.known[rs2] {
			p.lowerSP(-p.value[rs2])
		}
	case insn&0x707f == 0x3023 && rs1 == SP: // sd rs2, imm(sp)
		p.save(rs2, storeImm)
	case insn&0x707f == 0x3027 && rs1 == SP: // fsd rs2, imm(sp)
		p.save(F0+rs2, storeImm)
	case insn&0x7f == 0x33 || insn&0x7f == 0x3b || insn&0x7f == 0x03 || insn&0x7f == 0x17 || insn&0x7f == 0x13 || insn&0x7f == 0x1b:
		// Other arithmetic, loads, auipc: rd no longer holds a tracked
		// constant.
		p.setConst(rd, false, 0)
	}
	return true
}

// compressed applies one 16-bit instruction; false at a control transfer.
func (p *prologue) compressed(c uint32) bool {
	rd := int(c >> 7 & 0x1f)
	ci := int64((c>>12&1)<<5|c>>2&0x1f) << 58 >> 58 // the 6-bit signed immediate of CI forms
	switch {
	case c&0xe003 == 0xa001, c&0xe003 == 0xc001, c&0xe003 == 0xe001: // c.j, c.beqz, c.bnez
		return false
	case c&0xf07f == 0x8002 && rd != 0, c&0xf07f == 0x9002 && rd != 0: // c.jr, c.jalr
		return false
	case c&0xef83 == 0x6101: // c.addi16sp
		imm := (c>>12&1)<<9 | (c>>6&1)<<4 | (c>>5&1)<<6 | (c>>3&3)<<7 | (c>>2&1)<<5
		p.lowerSP(int64(imm) << 54 >> 54)
	case c&0xe003 == 0x0001: // c.addi rd, imm
		if rd == SP {
			p.lowerSP(ci)
		} else {
			p.setConst(rd, p.known[rd], p.value[rd]+ci)
		}
	case c&0xe003 == 0x2001: // c.addiw rd, imm
		p.setConst(rd, p.known[rd], int64(int32(p.value[rd]+ci)))
	case c&0xe003 == 0x4001: // c.li rd, imm
		p.setConst(rd, true, ci)
	case c&0xe003 == 0x6001: // c.lui rd, imm (rd != sp: c.addi16sp above)
		p.setConst(rd, true, ci<<12)
	case c&0xe01f == 0x0000 && c != 0: // c.addi4spn rd', sp, uimm
		uimm := (c>>11&3)<<4 | (c>>7&0xf)<<6 | (c>>6&1)<<2 | (c>>5&1)<<3
		if r := 8 + int(c>>2&7); r == FP {
			p.setFP(int64(uimm))
		} else {
			p.setConst(r, false, 0)
		}
	case c&0xf003 == 0x9002 && rd == SP && c>>2&0x1f != 0: // c.add sp, rs2
		if rs2 := int(c >> 2 & 0x1f); p.known[rs2] {
			p.lowerSP(p.value[rs2])
		}
	case c&0xf003 == 0x8002 && c>>2&0x1f != 0: // c.mv rd, rs2
		rs2 := int(c >> 2 & 0x1f)
		if rd == FP && rs2 == SP {
			p.setFP(0)
		} else {
			p.setConst(rd, p.known[rs2], p.value[rs2])
		}
	case c&0xe003 == 0xe002: // c.sdsp rs2, uimm(sp)
		p.save(int(c>>2&0x1f), int64((c>>10&7)<<3|(c>>7&7)<<6))
	case c&0xe003 == 0xa002: // c.fsdsp rs2, uimm(sp)
		p.save(F0+int(c>>2&0x1f), int64((c>>10&7)<<3|(c>>7&7)<<6))
	case c&3 == 2 || c&3 == 1 || c&3 == 0:
		// Other compressed arithmetic and loads write rd (or rd'); for
		// the forms above that did not match, forget what it held.
		if c&3 == 2 && c>>13 != 7 && c>>13 != 5 {
			p.setConst(rd, false, 0)
		} else if c&3 == 1 && c>>13 == 4 {
			p.setConst(8+int(c>>7&7), false, 0)
		}
	}
	return true
}

// setConst records what register r holds after an instruction: a
// constant when known, else nothing.
func (p *prologue) setConst(r int, known bool, v int64) {
	if r == X0 || r == SP {
		return
	}
	p.known[r], p.value[r] = known, v
}

// lowerSP applies "sp += delta": lowering extends the frame; raising it
// again (an epilogue) is not a prologue, and ends what is known.
func (p *prologue) lowerSP(delta int64) {
	if delta < 0 && -delta < 1<<24 {
		p.size += uint64(-delta)
	}
}

// setFP records "s0 = sp + k" once the frame exists.
func (p *prologue) setFP(k int64) {
	if p.size != 0 && !p.fpSet && k >= 0 && uint64(k) <= p.size {
		p.fpCFA, p.fpSet = p.size-uint64(k), true
	}
}

// save records the first store of ra or a callee-saved register into the
// new frame, at offset off from the current sp.
func (p *prologue) save(reg int, off int64) {
	rel := off - int64(p.size)
	if p.size == 0 || off < 0 || rel >= 0 || off%8 != 0 || !(reg == RA || preserved(reg)) || reg == SP {
		return
	}
	if _, dup := p.saved[reg]; !dup {
		p.saved[reg] = rel
	}
}

// stepPrologue unwinds a frame without CFI by its decoded prologue: the
// caller's sp (the CFA) is sp+size, or s0+fpCFA once the frame pointer is
// set up (which survives later sp changes such as alloca); saved
// registers are read from their slots; ra, when the prologue has not
// saved it yet (a leaf, or an interrupted frame still in its prologue),
// is still in the register, which only an interrupted frame may use.
func stepPrologue(as unwind.AddrSpace, p prologue, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	if !ok {
		return false
	}
	cfa := sp + p.size
	if p.fpSet {
		fp, ok := callee.Get(FP)
		if !ok {
			return false
		}
		cfa = fp + p.fpCFA
	}
	if cfa < sp || cfa-sp > stackscan.MaxFrameSize {
		return false
	}
	for r := 0; r < NumRegs; r++ {
		if v, ok := callee.Get(r); ok && preserved(r) && r != SP {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	for r, off := range p.saved {
		slot := cfa + uint64(off)
		v, err := readWord(as, slot)
		if err != nil {
			return false
		}
		caller.Set(r, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
	}
	_, raSaved := p.saved[RA]
	if !raSaved && !callee.ExactPC {
		return false
	}
	ra, _ := caller.Get(RA)
	if ra == 0 || !stackscan.IsCode(as, ra) || (!afterCall(as, ra) && readable(as, ra-4)) {
		return false
	}
	if pc, _ := callee.Get(PC); !raSaved && stackscan.SameProc(as, pc, ra-2) {
		// ra still in the register but pointing back into this function:
		// the return address of a call it made, past a save the decoder
		// did not reach (shrink-wrapped code).
		return false
	}
	caller.Set(PC, ra, caller.Locs[RA])
	caller.Set(SP, cfa, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.Set(X0, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.CFA, caller.HasCFA = cfa, true
	caller.Trust = unwind.TrustScan
	return true
}

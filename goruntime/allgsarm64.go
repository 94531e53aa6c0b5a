package goruntime

import "encoding/binary"

// AllgsFromARM64Code is AllgsFromCode for arm64 code (little-endian
// instructions). The Go compiler reaches a global through a register it
// loads with ADRP (the global's 4 KiB page) and then either adds the
// offset in the page (ADD) or puts it in the load or store (LDR/STR,
// LDP/STP with an immediate offset): each such access is a reference,
// LDP and STP to two words. Only these few encodings are decoded; any
// other instruction forgets what its destination register held.
func AllgsFromARM64Code(code []byte, pc uint64) (addr uint64, ok bool) {
	const unknown = ^uint64(0)
	var regs [32]uint64 // what ADRP/ADD put there; unknown otherwise
	for i := range regs {
		regs[i] = unknown
	}
	refs := map[uint64]bool{}
	for ; len(code) >= 4; code, pc = code[4:], pc+4 {
		insn := binary.LittleEndian.Uint32(code)
		rd, rn := insn&31, (insn>>5)&31
		switch {
		case insn&0x9f000000 == 0x90000000: // ADRP Xd, page
			imm := int64(insn>>5&0x7ffff)<<2 | int64(insn>>29&3)
			imm = imm << 43 >> 43 // sign-extend 21 bits
			regs[rd] = pc&^0xfff + uint64(imm<<12)
			continue
		case insn&0xff800000 == 0x91000000: // ADD Xd, Xn, #imm{, LSL #12}
			imm := uint64(insn >> 10 & 0xfff)
			if insn&(1<<22) != 0 {
				imm <<= 12
			}
			if base := regs[rn]; base != unknown {
				refs[base+imm] = true
				regs[rd] = base + imm
				continue
			}
		case insn&0x3b000000 == 0x39000000 && insn&(1<<26) == 0: // LDR/STR Rt, [Xn, #imm] (integer)
			size := insn >> 30
			if base := regs[rn]; base != unknown {
				refs[base+uint64(insn>>10&0xfff)<<size] = true
			}
			if insn&(3<<22) == 0 { // a store writes no register
				continue
			}
		case insn&0xffc00000 == 0xa9400000 || insn&0xffc00000 == 0xa9000000: // LDP/STP Xt1, Xt2, [Xn, #imm]
			off := uint64(int64(insn>>15&0x7f)<<57>>57) * 8
			if base := regs[rn]; base != unknown {
				refs[base+off], refs[base+off+8] = true, true
			}
			if insn&(1<<22) == 0 { // STP
				continue
			}
			regs[insn>>10&31] = unknown // LDP's second register
		}
		regs[rd] = unknown
	}
	return sliceAt(refs, 8)
}

package arm

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/coreunwind/coreunwind/unwind"
)

// A Thumb decoder for what matters to a fault: the 16- and 32-bit loads
// and stores (immediate, register and literal offsets; LDRD/STRD;
// LDM/STM, PUSH/POP), the branches through a register (BX, BLX), BL and
// BLX to an immediate, and the trapping UDF and BKPT. armasm decodes
// ARM code only. Anything else is reported as not decoded, with its
// halfwords: this decoder never guesses. Texts are libopcodes' (objdump
// and gdb), which the tests check.

// thumbInsn is a decoded Thumb instruction before its registers are
// looked up.
type thumbInsn struct {
	n     int // 2 or 4
	text  string
	class unwind.InsnClass
	mem   unwind.MemAccess
	// The memory operand: base (-1 none), index (-1 none) shifted left
	// by shift, disp added unless post-indexed; literal loads use the
	// word-aligned pc+4 as the base value.
	base, index, shift int
	disp               int64
	postIndex, literal bool
	regs               []int
}

// isThumb32 reports whether a first halfword starts a 32-bit
// instruction (its top five bits are 0b11101, 0b11110 or 0b11111).
func isThumb32(hw1 uint16) bool { return hw1>>11 >= 0x1d }

// decodeThumb decodes the Thumb instruction at the start of code (in
// the core's byte order, halfword by halfword).
func decodeThumb(code []byte, order binary.ByteOrder, pc uint64) (thumbInsn, error) {
	if len(code) < 2 {
		return thumbInsn{}, fmt.Errorf("thumb instruction at %#x: fewer than 2 bytes", pc)
	}
	hw1 := order.Uint16(code)
	if !isThumb32(hw1) {
		if t, ok := thumb16(hw1, pc); ok {
			t.n = 2
			return t, nil
		}
		return thumbInsn{}, fmt.Errorf("thumb instruction at %#x: %04x: %w", pc, hw1, unwind.ErrInsnNotCovered)
	}
	if len(code) < 4 {
		return thumbInsn{}, fmt.Errorf("thumb instruction at %#x: %04x needs a second halfword", pc, hw1)
	}
	hw2 := order.Uint16(code[2:])
	if t, ok := thumb32(hw1, hw2, pc); ok {
		t.n = 4
		return t, nil
	}
	return thumbInsn{}, fmt.Errorf("thumb instruction at %#x: %04x %04x: %w", pc, hw1, hw2, unwind.ErrInsnNotCovered)
}

// armReg is a register as libopcodes names it: as gdb does (RegName)
// but for r11 and r12, "fp" and "ip".
func armReg(r int) string {
	switch r {
	case 11:
		return "fp"
	case 12:
		return "ip"
	}
	return RegName(uint64(r))
}

// regList prints a register list, "{r4, r5, lr}", and returns its
// registers.
func regList(mask uint16) (string, []int) {
	var names []string
	var regs []int
	for r := 0; r < 16; r++ {
		if mask&(1<<r) != 0 {
			names = append(names, armReg(r))
			regs = append(regs, r)
		}
	}
	return "{" + strings.Join(names, ", ") + "}", regs
}

var (
	thumbLoadStoreReg = [8]string{"str", "strh", "strb", "ldrsb", "ldr", "ldrh", "ldrb", "ldrsh"}
	thumbSizes        = [3]string{"b", "h", ""}
)

// thumb16 decodes the 16-bit forms.
func thumb16(hw uint16, pc uint64) (thumbInsn, bool) {
	t := thumbInsn{base: -1, index: -1}
	lo3 := func(shift uint) int { return int(hw>>shift) & 7 }
	switch {
	case hw&0xf800 == 0x4800: // LDR (literal)
		rt, imm := lo3(8), int64(hw&0xff)*4
		t.text = fmt.Sprintf("ldr %s, [pc, #%d]", armReg(rt), imm)
		t.mem, t.literal, t.disp, t.regs = unwind.MemRead, true, imm, []int{rt}
	case hw&0xf000 == 0x5000: // load/store, register offset
		op, rm, rn, rt := lo3(9), lo3(6), lo3(3), lo3(0)
		t.text = fmt.Sprintf("%s %s, [%s, %s]", thumbLoadStoreReg[op], armReg(rt), armReg(rn), armReg(rm))
		t.mem = unwind.MemRead
		if op < 3 {
			t.mem = unwind.MemWrite
		}
		t.base, t.index, t.regs = rn, rm, []int{rt, rn, rm}
	case hw&0xe000 == 0x6000 || hw&0xf000 == 0x8000: // load/store, immediate offset
		imm, rn, rt := int64(hw>>6&0x1f), lo3(3), lo3(0)
		op := "str"
		switch {
		case hw&0xf000 == 0x8000:
			op, imm = "strh", imm*2
		case hw&0x1000 != 0:
			op = "strb"
		default:
			imm *= 4
		}
		t.mem = unwind.MemWrite
		if hw&0x0800 != 0 {
			op, t.mem = "ldr"+op[3:], unwind.MemRead
		}
		t.text = fmt.Sprintf("%s %s, [%s, #%d]", op, armReg(rt), armReg(rn), imm)
		t.base, t.disp, t.regs = rn, imm, []int{rt, rn}
	case hw&0xf000 == 0x9000: // load/store, sp-relative
		rt, imm := lo3(8), int64(hw&0xff)*4
		op := "str"
		t.mem = unwind.MemWrite
		if hw&0x0800 != 0 {
			op, t.mem = "ldr", unwind.MemRead
		}
		t.text = fmt.Sprintf("%s %s, [sp, #%d]", op, armReg(rt), imm)
		t.base, t.disp, t.regs = SP, imm, []int{rt, SP}
	case hw&0xfe00 == 0xb400: // PUSH
		mask := hw & 0xff
		if hw&0x100 != 0 {
			mask |= 1 << LR
		}
		list, regs := regList(mask)
		t.text = "push " + list
		t.mem, t.base, t.disp = unwind.MemWrite, SP, -4*int64(len(regs))
		t.regs = append(regs, SP)
	case hw&0xfe00 == 0xbc00: // POP
		mask := hw & 0xff
		if hw&0x100 != 0 {
			mask |= 1 << PC
			t.class = unwind.InsnReturn
		}
		list, regs := regList(mask)
		t.text = "pop " + list
		t.mem, t.base, t.postIndex = unwind.MemRead, SP, true
		t.regs = append(regs, SP)
	case hw&0xf000 == 0xc000: // STMIA / LDMIA
		rn := lo3(8)
		list, regs := regList(hw & 0xff)
		if hw&0x0800 == 0 {
			t.text = fmt.Sprintf("stmia %s!, %s", armReg(rn), list)
			t.mem = unwind.MemWrite
		} else {
			wb := "!"
			if hw&(1<<rn) != 0 {
				wb = ""
			}
			t.text = fmt.Sprintf("ldmia %s%s, %s", armReg(rn), wb, list)
			t.mem = unwind.MemRead
		}
		t.base, t.postIndex = rn, true
		t.regs = append([]int{rn}, regs...)
	case hw&0xff07 == 0x4700: // BX, BLX (register)
		rm := int(hw>>3) & 0xf
		if hw&0x80 != 0 {
			t.text, t.class = "blx "+armReg(rm), unwind.InsnCall
		} else {
			t.text, t.class = "bx "+armReg(rm), unwind.InsnJump
			if rm == LR {
				t.class = unwind.InsnReturn
			}
		}
		t.regs = []int{rm}
	case hw&0xff00 == 0xbe00:
		t.text, t.class = fmt.Sprintf("bkpt 0x%04x", hw&0xff), unwind.InsnTrap
	case hw&0xff00 == 0xde00:
		t.text, t.class = fmt.Sprintf("udf #%d", hw&0xff), unwind.InsnTrap
	default:
		return t, false
	}
	return t, true
}

// thumb32 decodes the 32-bit forms.
func thumb32(hw1, hw2 uint16, pc uint64) (thumbInsn, bool) {
	t := thumbInsn{base: -1, index: -1}
	rn, rt := int(hw1&0xf), int(hw2>>12)
	switch {
	case hw1&0xfe00 == 0xf800: // load/store single: 1111 100S U sz L Rn
		return thumbSingle(hw1, hw2)
	case hw1&0xfe40 == 0xe840 && hw1&0x0120 != 0: // LDRD/STRD (immediate)
		p, u, w, l := hw1&0x100 != 0, hw1&0x80 != 0, hw1&0x20 != 0, hw1&0x10 != 0
		rt2, imm := int(hw2>>8&0xf), int64(hw2&0xff)*4
		op := "strd"
		t.mem = unwind.MemWrite
		if l {
			op, t.mem = "ldrd", unwind.MemRead
		}
		if !u {
			imm = -imm
		}
		t.text = fmt.Sprintf("%s %s, %s, %s", op, armReg(rt), armReg(rt2), thumbAddr(rn, imm, p, w))
		t.base, t.disp, t.postIndex = rn, imm, !p
		if rn == PC {
			t.literal = true
		}
		t.regs = []int{rt, rt2, rn}
	case hw1&0xfe40 == 0xe800 && (hw1>>7&3 == 1 || hw1>>7&3 == 2): // LDM/STM (IA, DB)
		db, w, l := hw1>>7&3 == 2, hw1&0x20 != 0, hw1&0x10 != 0
		list, regs := regList(hw2)
		wb := ""
		if w {
			wb = "!"
		}
		op := "stm"
		if l {
			op = "ldm"
		}
		if db {
			op += "db"
		} else {
			op += "ia.w"
		}
		// libopcodes prints no push/pop aliases of the 32-bit forms.
		t.text = fmt.Sprintf("%s %s%s, %s", op, armReg(rn), wb, list)
		t.mem = unwind.MemWrite
		if l {
			t.mem = unwind.MemRead
			if hw2&(1<<PC) != 0 {
				t.class = unwind.InsnReturn
			}
		}
		t.base = rn
		if db {
			t.disp = -4 * int64(len(regs))
		} else {
			t.postIndex = true
		}
		t.regs = append([]int{rn}, regs...)
	case hw1&0xf800 == 0xf000 && hw2&0xd000 == 0xd000, hw1&0xf800 == 0xf000 && hw2&0xd001 == 0xc000: // BL, BLX (immediate)
		s := int64(hw1>>10) & 1
		j1, j2 := int64(hw2>>13)&1, int64(hw2>>11)&1
		i1, i2 := 1^(j1^s), 1^(j2^s)
		imm := s<<24 | i1<<23 | i2<<22 | int64(hw1&0x3ff)<<12 | int64(hw2&0x7ff)<<1
		imm = imm << 39 >> 39 // sign-extend 25 bits
		target := pc + 4 + uint64(imm)
		op := "bl"
		if hw2&0x1000 == 0 {
			op, target = "blx", (pc+4)&^3+uint64(imm)
		}
		t.text, t.class = fmt.Sprintf("%s %#x", op, uint32(target)), unwind.InsnCall
	case hw1&0xfff0 == 0xf7f0 && hw2&0xf000 == 0xa000: // UDF.W
		t.text, t.class = fmt.Sprintf("udf.w #%d", uint32(hw1&0xf)<<12|uint32(hw2&0xfff)), unwind.InsnTrap
	default:
		return t, false
	}
	return t, true
}

// thumbAddr prints an immediate-offset address as libopcodes does:
// "[r1, #8]", "[r1]", "[r1, #-4]!", "[r1], #4".
func thumbAddr(rn int, imm int64, p, w bool) string {
	switch {
	case !p:
		return fmt.Sprintf("[%s], #%d", armReg(rn), imm)
	case w:
		return fmt.Sprintf("[%s, #%d]!", armReg(rn), imm)
	case imm == 0:
		return fmt.Sprintf("[%s]", armReg(rn))
	}
	return fmt.Sprintf("[%s, #%d]", armReg(rn), imm)
}

// thumbSingle decodes the 32-bit single loads and stores: hw1 =
// 1111 100 S U sz(2) L Rn; U (bit 7) set is the imm12 form, else hw2
// says imm8 (with P, U, W) or register (Rm, shift).
func thumbSingle(hw1, hw2 uint16) (thumbInsn, bool) {
	t := thumbInsn{base: -1, index: -1}
	signed, imm12, size, load := hw1&0x100 != 0, hw1&0x80 != 0, int(hw1>>5&3), hw1&0x10 != 0
	rn, rt := int(hw1&0xf), int(hw2>>12)
	if size == 3 || (signed && !load) {
		return t, false
	}
	op := "str"
	t.mem = unwind.MemWrite
	if load {
		op, t.mem = "ldr", unwind.MemRead
		if signed {
			op += "s"
		}
		if rt == PC && size != 2 {
			return t, false // PLD, PLI: hints
		}
	}
	op += thumbSizes[size]
	t.base, t.regs = rn, []int{rt, rn}
	switch {
	case rn == PC && load: // literal: U is bit 7
		imm := int64(hw2 & 0xfff)
		if !imm12 {
			imm = -imm
		}
		t.text = fmt.Sprintf("%s.w %s, [pc, #%d]", op, armReg(rt), imm)
		t.literal, t.disp = true, imm
		t.regs = []int{rt}
	case rn == PC:
		return t, false
	case imm12:
		imm := int64(hw2 & 0xfff)
		t.text = fmt.Sprintf("%s.w %s, %s", op, armReg(rt), thumbAddr(rn, imm, true, false))
		t.disp = imm
	case hw2&0x0800 != 0: // imm8: Rt 1 P U W imm8
		p, u, w := hw2&0x400 != 0, hw2&0x200 != 0, hw2&0x100 != 0
		imm := int64(hw2 & 0xff)
		if !u {
			imm = -imm
		}
		switch {
		case !p && !w:
			return t, false
		case p && u && !w: // LDRT/STRT: unprivileged, same address
			op += "t"
		default:
			op += ".w"
		}
		t.text = fmt.Sprintf("%s %s, %s", op, armReg(rt), thumbAddr(rn, imm, p, w))
		t.disp, t.postIndex = imm, !p
	case hw2&0x0fc0 == 0: // register: Rt 000000 imm2 Rm
		rm, sh := int(hw2&0xf), int(hw2>>4&3)
		addr := fmt.Sprintf("[%s, %s]", armReg(rn), armReg(rm))
		if sh != 0 {
			addr = fmt.Sprintf("[%s, %s, lsl #%d]", armReg(rn), armReg(rm), sh)
		}
		t.text = fmt.Sprintf("%s.w %s, %s", op, armReg(rt), addr)
		t.index, t.shift = rm, sh
		t.regs = []int{rt, rn, rm}
	default:
		return t, false
	}
	return t, true
}

// insn computes the memory operand's address from the registers and
// fills the unwind.Insn.
func (t thumbInsn) insn(pc uint64, reg func(int) (uint64, bool)) unwind.Insn {
	in := unwind.Insn{Len: t.n, Text: t.text, Class: t.class, Mem: t.mem, MemBase: -1, MemIndex: -1, Divisor: -1}
	regs := t.regs
	if t.mem == unwind.MemRead {
		// A load reads only the registers that address memory: what
		// it loads into is not read.
		regs = nil
		switch {
		case t.literal:
			regs = append(regs, PC)
		case t.base >= 0:
			regs = append(regs, t.base)
		}
		if t.index >= 0 {
			regs = append(regs, t.index)
		}
	}
	for _, r := range regs {
		in.AddReg(r)
	}
	if t.mem == unwind.MemNone {
		return in
	}
	if !t.postIndex {
		in.MemDisp = t.disp
	}
	var b uint64
	okb := true
	switch {
	case t.literal:
		b = (pc + 4) &^ 3
		in.MemBase = PC
	default:
		in.MemBase = t.base
		b, okb = reg(t.base)
	}
	x, okx := uint64(0), true
	if t.index >= 0 {
		in.MemIndex = t.index
		x, okx = reg(t.index)
		x <<= t.shift
	}
	if okb && okx {
		addr := b + x
		if !t.postIndex {
			addr += uint64(t.disp)
		}
		in.MemAddr, in.HasMemAddr = addr&0xffffffff, true
	}
	return in
}

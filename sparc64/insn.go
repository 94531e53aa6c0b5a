package sparc64

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// golang.org/x/arch has no SPARC decoder: this one covers what a crash
// involves, as objdump prints it: the integer and floating-point loads
// and stores (their [rs1 + simm13] or [rs1 + rs2] operand), the calls
// (call, jmpl linking %o7), jumps and returns (ret, retl), and the traps
// (ta, the conditional tcc, illtrap; "ta 0x6d" and "ta 0x10" are system
// calls, "ta 3" flushes the register windows). Any other instruction is
// "not among the forms decoded".

var _ unwind.InsnDecoder = Arch{}

// MaxInsnLen: SPARC instructions are 4 bytes.
func (Arch) MaxInsnLen() int { return 4 }

// DelaySlot: a call's return address (%o7 + 8) is past its delay slot
// (unwind.DelaySlotArch).
func (Arch) DelaySlot() int { return 4 }

// CanonicalAddr: SPARC V9's virtual address hole depends on the CPU.
func (Arch) CanonicalAddr(uint64) bool { return true }

// memOp is one load or store (format 3, op 3) by op3: its mnemonic, its
// access, and its data register's kind (integer, single or double
// floating-point).
type memOp struct {
	name string
	mem  unwind.MemAccess
	fp   int // 0: integer, 1: single, 2: double
}

var memOps = map[uint32]memOp{
	0x00: {"ld", unwind.MemRead, 0}, 0x01: {"ldub", unwind.MemRead, 0}, 0x02: {"lduh", unwind.MemRead, 0},
	0x03: {"ldd", unwind.MemRead, 0}, 0x08: {"ldsw", unwind.MemRead, 0}, 0x09: {"ldsb", unwind.MemRead, 0},
	0x0a: {"ldsh", unwind.MemRead, 0}, 0x0b: {"ldx", unwind.MemRead, 0},
	0x04: {"st", unwind.MemWrite, 0}, 0x05: {"stb", unwind.MemWrite, 0}, 0x06: {"sth", unwind.MemWrite, 0},
	0x07: {"std", unwind.MemWrite, 0}, 0x0e: {"stx", unwind.MemWrite, 0},
	0x0d: {"ldstub", unwind.MemReadWrite, 0}, 0x0f: {"swap", unwind.MemReadWrite, 0},
	0x20: {"ld", unwind.MemRead, 1}, 0x23: {"ldd", unwind.MemRead, 2},
	0x24: {"st", unwind.MemWrite, 1}, 0x27: {"std", unwind.MemWrite, 2},
}

// clearNames are the stores of %g0 as objdump writes them.
var clearNames = map[string]string{"st": "clr", "stb": "clrb", "sth": "clrh", "stx": "clrx"}

// trapConds are the condition names of Tcc (cond field), "" for ta.
var trapConds = [16]string{"tn", "te", "tle", "tl", "tleu", "tcs", "tneg", "tvs", "ta", "tne", "tg", "tge", "tgu", "tcc", "tpos", "tvc"}

// DecodeInsn decodes the instruction at the start of code (see above).
func (Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	in := unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}
	if len(code) < 4 {
		return in, errors.New("SPARC instruction: fewer than 4 bytes")
	}
	insn := binary.BigEndian.Uint32(code)
	in.Len = 4
	op, rd, op3, rs1, rs2 := insn>>30, int(insn>>25&0x1f), insn>>19&0x3f, int(insn>>14&0x1f), int(insn&0x1f)
	imm, useImm := int64(insn&0x1fff)<<51>>51, insn>>13&1 == 1
	switch {
	case op == 3 && memOps[op3].name != "":
		m := memOps[op3]
		in.Mem = m.mem
		addr := addrText(rs1, rs2, imm, useImm)
		data, dreg := "%"+RegName(uint64(rd)), rd
		switch m.fp {
		case 1:
			data, dreg = fmt.Sprintf("%%f%d", rd), F0+rd
		case 2:
			n := rd&0x1e | (rd&1)<<5
			data, dreg = fmt.Sprintf("%%f%d", n), F0+n
		}
		operand := func() {
			if rs1 != G0 {
				in.AddReg(rs1)
			}
			if !useImm && rs2 != G0 {
				in.AddReg(rs2)
			}
		}
		switch {
		case m.mem == unwind.MemWrite && m.fp == 0 && rd == G0 && clearNames[m.name] != "":
			in.Text = clearNames[m.name] + " " + addr
			operand()
		case m.mem == unwind.MemWrite:
			in.Text = m.name + " " + data + ", " + addr
			if dreg != G0 {
				in.AddReg(dreg)
			}
			operand()
		default:
			in.Text = m.name + " " + addr + ", " + data
			operand()
			if dreg != G0 {
				in.AddReg(dreg)
			}
		}
		memOperand(&in, rs1, rs2, imm, useImm, reg)
	case op == 1: // call disp30
		in.Text = fmt.Sprintf("call %#x", pc+uint64(int64(insn)<<34>>32))
		in.Class = unwind.InsnCall
		in.AddReg(O7)
	case op == 2 && op3 == 0x38: // jmpl
		switch {
		case useImm && imm == 8 && rd == G0 && rs1 == I7:
			in.Text, in.Class = "ret", unwind.InsnReturn
			in.AddReg(I7)
		case useImm && imm == 8 && rd == G0 && rs1 == O7:
			in.Text, in.Class = "retl", unwind.InsnReturn
			in.AddReg(O7)
		default:
			target := jumpText(rs1, rs2, imm, useImm)
			switch rd {
			case O7:
				in.Text, in.Class = "call "+target, unwind.InsnCall
			case G0:
				in.Text, in.Class = "jmp "+target, unwind.InsnJump
			default:
				in.Text, in.Class = "jmpl "+target+", %"+RegName(uint64(rd)), unwind.InsnJump
			}
			if rd != G0 {
				in.AddReg(rd)
			}
			if rs1 != G0 {
				in.AddReg(rs1)
			}
			if !useImm && rs2 != G0 {
				in.AddReg(rs2)
			}
		}
	case op == 2 && op3 == 0x3a && useImm && rs1 == G0: // Tcc %icc/%xcc, imm
		cond := insn >> 25 & 0xf
		n := insn & 0x7f
		in.Text = trapConds[cond] + " " + immText(int64(n))
		switch {
		case cond == 8 && (n == 0x10 || n == 0x6d || n == 3):
			// A system call, or the window flush: no fault.
		case cond == 8:
			in.Class = unwind.InsnTrap
		case cond != 0:
			in.Class = unwind.InsnCondTrap
		}
	case op == 0 && insn>>22&7 == 0: // illtrap const22
		in.Text = "illtrap " + immText(int64(insn&0x3fffff))
		in.Class = unwind.InsnTrap
	default:
		return in, fmt.Errorf("SPARC instruction %#08x at %#x: %w", insn, pc, unwind.ErrInsnNotCovered)
	}
	return in, nil
}

// memOperand records [rs1 + simm13] or [rs1 + rs2]; %g0 reads 0.
func memOperand(in *unwind.Insn, rs1, rs2 int, imm int64, useImm bool, reg func(int) (uint64, bool)) {
	get := func(r int) (uint64, bool) {
		if r == G0 {
			return 0, true
		}
		return reg(r)
	}
	if rs1 != G0 {
		in.MemBase = rs1
	}
	if useImm {
		in.MemDisp = imm
	} else if rs2 != G0 {
		in.MemIndex = rs2
	}
	base, ok1 := get(rs1)
	off, ok2 := uint64(imm), true
	if !useImm {
		off, ok2 = get(rs2)
	}
	if ok1 && ok2 {
		in.MemAddr, in.HasMemAddr = base+off, true
	}
}

// addrText is an address operand as objdump prints it: "[ %o0 + 8 ]",
// "[ %o0 ]", "[ %o0 + %o1 ]", "[ 0xc ]" (%g0 as the base).
func addrText(rs1, rs2 int, imm int64, useImm bool) string {
	return "[ " + jumpText(rs1, rs2, imm, useImm) + " ]"
}

// jumpText is rs1 + simm13 or rs1 + rs2 as objdump prints it, without
// the brackets.
func jumpText(rs1, rs2 int, imm int64, useImm bool) string {
	r1 := "%" + RegName(uint64(rs1))
	switch {
	case !useImm && rs2 == G0:
		return r1
	case !useImm:
		return r1 + " + %" + RegName(uint64(rs2))
	case rs1 == G0:
		return immText(imm)
	case imm == 0:
		return r1
	}
	return r1 + " + " + immText(imm)
}

// immText prints an immediate as objdump does: decimal up to 9 (and
// negative ones), hexadecimal above.
func immText(v int64) string {
	if v > 9 {
		return fmt.Sprintf("%#x", v)
	}
	return fmt.Sprint(v)
}

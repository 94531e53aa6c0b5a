package mips

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// golang.org/x/arch has no MIPS decoder: this one covers what a crash
// involves, as objdump prints it: the loads and stores (their
// offset(base) operand), the calls (jal, bal, jalr), jumps and returns
// (jr), and the traps (break; teq and the other conditional traps). Any
// other instruction is "not among the forms decoded". A fault in a
// branch's delay slot reports the branch as its pc (cp0_cause's BD
// bit): its memory access is then not decoded.

var _ unwind.InsnDecoder = Arch{}

// MaxInsnLen: MIPS instructions are 4 bytes (MIPS16 and microMIPS code is
// not decoded).
func (Arch) MaxInsnLen() int { return 4 }

// DelaySlot: a call's return address is past its delay slot
// (unwind.DelaySlotArch).
func (Arch) DelaySlot() int { return 4 }

// CanonicalAddr: o32 and n64 user addresses are not told apart by form.
func (Arch) CanonicalAddr(uint64) bool { return true }

// memOp is one load or store: its mnemonic, how it accesses memory, and
// whether rt is a floating-point register.
type memOp struct {
	name string
	mem  unwind.MemAccess
	fpr  bool
}

// memOps are the loads and stores by major opcode.
var memOps = map[uint32]memOp{
	0x20: {"lb", unwind.MemRead, false}, 0x21: {"lh", unwind.MemRead, false},
	0x22: {"lwl", unwind.MemRead, false}, 0x23: {"lw", unwind.MemRead, false},
	0x24: {"lbu", unwind.MemRead, false}, 0x25: {"lhu", unwind.MemRead, false},
	0x26: {"lwr", unwind.MemRead, false}, 0x27: {"lwu", unwind.MemRead, false},
	0x1a: {"ldl", unwind.MemRead, false}, 0x1b: {"ldr", unwind.MemRead, false},
	0x37: {"ld", unwind.MemRead, false}, 0x30: {"ll", unwind.MemRead, false},
	0x34: {"lld", unwind.MemRead, false}, 0x31: {"lwc1", unwind.MemRead, true},
	0x35: {"ldc1", unwind.MemRead, true},
	0x28: {"sb", unwind.MemWrite, false}, 0x29: {"sh", unwind.MemWrite, false},
	0x2a: {"swl", unwind.MemWrite, false}, 0x2b: {"sw", unwind.MemWrite, false},
	0x2e: {"swr", unwind.MemWrite, false}, 0x2c: {"sdl", unwind.MemWrite, false},
	0x2d: {"sdr", unwind.MemWrite, false}, 0x3f: {"sd", unwind.MemWrite, false},
	0x38: {"sc", unwind.MemWrite, false}, 0x3c: {"scd", unwind.MemWrite, false},
	0x39: {"swc1", unwind.MemWrite, true}, 0x3d: {"sdc1", unwind.MemWrite, true},
}

// condTraps are the SPECIAL conditional traps by function code.
var condTraps = map[uint32]string{0x30: "tge", 0x31: "tgeu", 0x32: "tlt", 0x33: "tltu", 0x34: "teq", 0x36: "tne"}

// DecodeInsn decodes the instruction at the start of code (see above).
func (a Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	in := unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}
	if len(code) < 4 {
		return in, errors.New("MIPS instruction: fewer than 4 bytes")
	}
	insn := a.order().Uint32(code)
	in.Len = 4
	op, rs, rt, rd := insn>>26, int(insn>>21&0x1f), int(insn>>16&0x1f), int(insn>>11&0x1f)
	imm := int64(int16(insn))
	if m, ok := memOps[op]; ok {
		r, name := rt, a.regName(rt)
		if m.fpr {
			r, name = F0+rt, fmt.Sprintf("$f%d", rt)
		}
		in.Text = fmt.Sprintf("%s %s,%d(%s)", m.name, name, imm, a.regName(rs))
		in.Mem, in.MemDisp = m.mem, imm
		if r != Zero {
			in.AddReg(r)
		}
		a.memOperand(&in, rs, imm, reg)
		return in, nil
	}
	switch {
	case op == 0 && insn&0x3f == 0x08 && insn&0x1ff800 == 0: // jr rs
		in.Text = "jr " + a.regName(rs)
		in.Class = unwind.InsnJump
		if rs == RA {
			in.Class = unwind.InsnReturn
		}
		in.AddReg(rs)
	case op == 0 && insn&0x3f == 0x09 && rt == 0: // jalr rd, rs
		in.Text = "jalr " + a.regName(rs)
		if rd != RA {
			in.Text = "jalr " + a.regName(rd) + "," + a.regName(rs)
		}
		in.Class = unwind.InsnCall
		in.AddReg(rd)
		in.AddReg(rs)
	case op == 3: // jal
		in.Text = fmt.Sprintf("jal %#x", (pc+4)&^0x0fffffff|uint64(insn&0x03ffffff)<<2)
		in.Class = unwind.InsnCall
		in.AddReg(RA)
	case op == 1 && rs == 0 && rt == 0x11: // bal
		in.Text = fmt.Sprintf("bal %#x", a.narrow(uint64(int64(pc)+4+imm<<2)))
		in.Class = unwind.InsnCall
		in.AddReg(RA)
	case op == 0 && insn&0x3f == 0x0d: // break
		c1, c2 := insn>>16&0x3ff, insn>>6&0x3ff
		switch {
		case c1 == 0 && c2 == 0:
			in.Text = "break"
		case c2 == 0:
			in.Text = fmt.Sprintf("break %#x", c1)
		default:
			in.Text = fmt.Sprintf("break %#x,%#x", c1, c2)
		}
		in.Class = unwind.InsnTrap
	case op == 0 && condTraps[insn&0x3f] != "":
		name := condTraps[insn&0x3f]
		in.Text = fmt.Sprintf("%s %s,%s", name, a.regName(rs), a.regName(rt))
		if c := insn >> 6 & 0x3ff; c != 0 {
			in.Text += fmt.Sprintf(",%#x", c)
		}
		in.Class = unwind.InsnCondTrap
		if name == "teq" && rs == rt {
			in.Class = unwind.InsnTrap
		}
		for _, r := range []int{rs, rt} {
			if r != Zero {
				in.AddReg(r)
			}
		}
	default:
		return in, fmt.Errorf("MIPS instruction %#08x at %#x: %w", insn, pc, unwind.ErrInsnNotCovered)
	}
	return in, nil
}

// memOperand records offset(base); $zero as the base is the address
// offset itself.
func (a Arch) memOperand(in *unwind.Insn, base int, off int64, reg func(int) (uint64, bool)) {
	if base == Zero {
		in.MemAddr, in.HasMemAddr = a.narrow(uint64(off)), true
		return
	}
	in.MemBase = base
	in.AddReg(base)
	if v, ok := reg(base); ok {
		in.MemAddr, in.HasMemAddr = a.narrow(v+uint64(off)), true
	}
}

// n64Names are $8–$15 as the n64 ABI names them (a4–a7, t0–t3); o32's
// are t0–t7.
var n64Names = [8]string{"a4", "a5", "a6", "a7", "t0", "t1", "t2", "t3"}

// regName names general register r as objdump does for the ABI.
func (a Arch) regName(r int) string {
	if a.wide && r >= 8 && r < 16 {
		return n64Names[r-8]
	}
	return abiNames[r]
}

// order is the ABI's byte order.
func (a Arch) order() binary.ByteOrder {
	if a.big {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

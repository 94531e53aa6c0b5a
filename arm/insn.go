package arm

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"

	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/arch/arm/armasm"
)

var _ unwind.InsnDecoder = Arch{}

// MaxInsnLen: ARM instructions are 4 bytes, Thumb ones 2 or 4.
func (Arch) MaxInsnLen() int { return 4 }

// CanonicalAddr: every 32-bit address is one the machine can access.
func (Arch) CanonicalAddr(uint64) bool { return true }

// DecodeInsn decodes the instruction at pc: Thumb code when pc has bit 0
// set (an interworking address) or, at frame 0's own pc, when cpsr's T
// bit says so; ARM code otherwise, with armasm. Thumb is decoded by
// thumb.go for the forms a fault involves; other Thumb instructions are
// reported as not decoded.
func (Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	thumb := pc&1 != 0
	pc &^= 1
	if !thumb {
		cpsr, ok1 := reg(CPSR)
		thumb = ok1 && cpsr&cpsrThumb != 0
	}
	// armhf is little-endian; BE8 code (big-endian data) still has
	// little-endian instructions.
	order := binary.LittleEndian
	if thumb {
		t, err := decodeThumb(code, order, pc)
		if err != nil {
			return unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}, err
		}
		return t.insn(pc, reg), nil
	}
	return decodeARM(code, pc, reg)
}

// decodeARM decodes ARM code with armasm: single loads and stores by
// their Mem operand (the pc reads as pc+8), LDM/STM/PUSH/POP by their
// register list, BX/BLX/BL and the traps.
func decodeARM(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	in := unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}
	if len(code) < 4 {
		return in, fmt.Errorf("ARM instruction at %#x: fewer than 4 bytes", pc)
	}
	if w := binary.LittleEndian.Uint32(code); w&0xfff000f0 == 0xe7f000f0 {
		// UDF (permanently undefined), which armasm does not know.
		in.Len, in.Class = 4, unwind.InsnTrap
		in.Text = fmt.Sprintf("udf #%d", w>>4&0xfff0|w&0xf)
		return in, nil
	}
	inst, err := armasm.Decode(code[:4], armasm.ModeARM)
	if err != nil {
		return in, fmt.Errorf("ARM instruction at %#x: %w", pc, err)
	}
	in.Len = 4
	in.Text = armasm.GNUSyntax(inst)
	op := strings.ToUpper(strings.SplitN(inst.Op.String(), ".", 2)[0])
	var list armasm.RegList
	listBase := -1
	// What a load loads into (LDR's registers before its address,
	// LDM's and POP's list) is not read.
	loadRegs := strings.HasPrefix(op, "LDR")
	loadList := strings.HasPrefix(op, "LDM") || strings.HasPrefix(op, "POP")
	for _, a := range inst.Args {
		switch x := a.(type) {
		case armasm.Reg:
			if x <= armasm.R15 {
				if !loadRegs {
					in.AddReg(int(x))
				}
				if listBase < 0 {
					listBase = int(x)
				}
			}
		case armasm.RegList:
			list = x
			for r := 0; r < 16 && !loadList; r++ {
				if x&(1<<r) != 0 {
					in.AddReg(r)
				}
			}
		case armasm.Mem:
			armMem(&in, x, pc, reg)
		}
	}
	switch {
	case strings.HasPrefix(op, "PUSH"):
		listMem(&in, SP, -4*int64(bits.OnesCount16(uint16(list))), unwind.MemWrite, reg)
		in.AddReg(SP)
	case strings.HasPrefix(op, "POP"):
		listMem(&in, SP, 0, unwind.MemRead, reg)
		in.AddReg(SP)
	case (strings.HasPrefix(op, "LDM") || strings.HasPrefix(op, "STM")) && listBase >= 0:
		access := unwind.MemWrite
		if op[0] == 'L' {
			access = unwind.MemRead
		}
		n := 4 * int64(bits.OnesCount16(uint16(list)))
		var off int64
		switch {
		case strings.Contains(op, "IB"):
			off = 4
		case strings.Contains(op, "DA"):
			off = 4 - n
		case strings.Contains(op, "DB"):
			off = -n
		}
		listMem(&in, listBase, off, access, reg)
	case in.MemBase >= 0 || in.HasMemAddr:
		in.Mem = unwind.MemRead
		switch {
		case strings.HasPrefix(op, "STR") || strings.HasPrefix(op, "STREX"):
			in.Mem = unwind.MemWrite
		case strings.HasPrefix(op, "SWP"):
			in.Mem = unwind.MemReadWrite
		case strings.HasPrefix(op, "PLD") || strings.HasPrefix(op, "PLI"):
			in.Mem = unwind.MemNone
		}
	}
	switch {
	case op == "BL" || op == "BLX":
		in.Class = unwind.InsnCall
	case op == "BX" && len(in.Regs) == 1 && in.Regs[0] == LR:
		in.Class = unwind.InsnReturn
	case op == "BX":
		in.Class = unwind.InsnJump
	case op == "UDF" || op == "BKPT":
		in.Class = unwind.InsnTrap
	case (op == "POP" || op == "LDM") && list&(1<<PC) != 0:
		in.Class = unwind.InsnReturn
	}
	return in, nil
}

// armMem records a single load's or store's Mem operand.
func armMem(in *unwind.Insn, m armasm.Mem, pc uint64, reg func(int) (uint64, bool)) {
	base := int(m.Base)
	in.MemBase = base
	in.AddReg(base)
	b, okb := reg(base)
	if base == PC {
		b, okb = pc+8, true
	}
	x, okx := uint64(0), true
	if m.Sign != 0 {
		in.MemIndex = int(m.Index)
		in.AddReg(int(m.Index))
		var v uint64
		v, okx = reg(int(m.Index))
		v = uint64(uint32(v))
		if m.Count != 0 {
			switch m.Shift {
			case armasm.ShiftLeft:
				v <<= m.Count
			case armasm.ShiftRight:
				v >>= m.Count
			case armasm.ShiftRightSigned:
				v = uint64(int64(int32(uint32(v))) >> m.Count)
			default:
				okx = false // ror, rrx: not worth the code
			}
		}
		x = v
		if m.Sign < 0 {
			x = -x
		}
	} else {
		x = uint64(int64(m.Offset))
		in.MemDisp = int64(m.Offset)
	}
	if m.Mode == armasm.AddrPostIndex {
		x, in.MemDisp = 0, 0
	}
	if okb && okx {
		in.MemAddr, in.HasMemAddr = (b+x)&0xffffffff, true
	}
}

// listMem records an LDM/STM's first address: base + off.
func listMem(in *unwind.Insn, base int, off int64, access unwind.MemAccess, reg func(int) (uint64, bool)) {
	in.Mem, in.MemBase, in.MemDisp = access, base, off
	if v, ok := reg(base); ok {
		in.MemAddr, in.HasMemAddr = (v+uint64(off))&0xffffffff, true
	}
}

package aarch64

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/arch/arm64/arm64asm"
)

var _ unwind.InsnDecoder = Arch{}

// MaxInsnLen: every A64 instruction is 4 bytes.
func (Arch) MaxInsnLen() int { return 4 }

// CanonicalAddr: whether an address is valid depends on the kernel's
// virtual address size and top-byte-ignore, which the core does not say.
func (Arch) CanonicalAddr(uint64) bool { return true }

// DecodeInsn decodes one instruction with arm64asm, and works out what it
// does to memory and which registers it uses. A64 has no implicit stack
// accesses (bl writes the link register) and no trapping division.
func (Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	in := unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}
	if len(code) < 4 {
		return in, errors.New("A64 instruction: fewer than 4 bytes")
	}
	inst, err := arm64asm.Decode(code[:4])
	if err != nil {
		return in, fmt.Errorf("A64 instruction at %#x: %w", pc, err)
	}
	in.Len = 4
	in.Text = arm64asm.GNUSyntax(inst)
	addReg := in.AddReg
	hasMem := false
	// A load's registers before its memory operand are what it loads
	// into: not among the registers it reads.
	load := accessOf(inst.Op.String()) == unwind.MemRead
	for _, a := range inst.Args {
		switch a := a.(type) {
		case nil:
		case arm64asm.Reg:
			if r, ok := gpr(a, false); ok && !(load && !hasMem) {
				addReg(r)
			}
		case arm64asm.RegSP:
			if r, ok := gpr(arm64asm.Reg(a), true); ok && !(load && !hasMem) {
				addReg(r)
			}
		case arm64asm.MemImmediate:
			hasMem = true
			base, ok := gpr(arm64asm.Reg(a.Base), true)
			if !ok {
				continue
			}
			in.MemBase = base
			addReg(base)
			var off int64
			if a.Mode == arm64asm.AddrOffset || a.Mode == arm64asm.AddrPreIndex {
				off = memImm(a)
			}
			in.MemDisp = off
			if v, ok := reg(base); ok {
				in.MemAddr, in.HasMemAddr = v+uint64(off), true
			}
		case arm64asm.MemExtend:
			hasMem = true
			base, ok1 := gpr(arm64asm.Reg(a.Base), true)
			index, ok2 := gpr(a.Index, false)
			if !ok1 || !ok2 {
				continue
			}
			in.MemBase, in.MemIndex = base, index
			addReg(base)
			addReg(index)
			b, okb := reg(base)
			x, okx := reg(index)
			if okb && okx {
				in.MemAddr, in.HasMemAddr = b+extend(x, a), true
			}
		case arm64asm.PCRel:
			if strings.HasPrefix(inst.Op.String(), "LDR") {
				hasMem = true
				in.MemAddr, in.HasMemAddr = pc+uint64(a), true
			}
		}
	}
	op := inst.Op.String()
	switch {
	case op == "BRK" || op == "UDF" || op == "HLT":
		in.Class = unwind.InsnTrap
	case op == "BL" || op == "BLR" || strings.HasPrefix(op, "BLRA"):
		in.Class = unwind.InsnCall
	case op == "BR" || strings.HasPrefix(op, "BRA"):
		in.Class = unwind.InsnJump
	case op == "RET" || strings.HasPrefix(op, "RETA"):
		in.Class = unwind.InsnReturn
	}
	if hasMem {
		in.Mem = accessOf(op)
	}
	return in, nil
}

// accessOf says how a load/store instruction uses memory: LD* read, ST*
// write, the atomics (LDADD, SWP, CAS...) both; prefetches none.
func accessOf(op string) unwind.MemAccess {
	for _, p := range []string{"LDADD", "LDCLR", "LDEOR", "LDSET", "LDSMAX", "LDSMIN", "LDUMAX", "LDUMIN", "SWP", "CAS",
		"STADD", "STCLR", "STEOR", "STSET", "STSMAX", "STSMIN", "STUMAX", "STUMIN"} {
		if strings.HasPrefix(op, p) {
			return unwind.MemReadWrite
		}
	}
	switch {
	case strings.HasPrefix(op, "PRFM") || strings.HasPrefix(op, "PRFUM"):
		return unwind.MemNone
	case strings.HasPrefix(op, "LD"):
		return unwind.MemRead
	case strings.HasPrefix(op, "ST"):
		return unwind.MemWrite
	}
	return unwind.MemReadWrite
}

// gpr maps a general register (x or w view) to its DWARF number; the
// zero register has none, and the same encoding is sp where sp is meant.
func gpr(r arm64asm.Reg, spAllowed bool) (int, bool) {
	switch {
	case r == arm64asm.SP && spAllowed:
		return SP, true
	case r >= arm64asm.X0 && r <= arm64asm.X30:
		return int(r - arm64asm.X0), true
	case r >= arm64asm.W0 && r <= arm64asm.W30:
		return int(r - arm64asm.W0), true
	}
	return 0, false
}

// memImm is a MemImmediate's offset, which arm64asm keeps unexported but
// prints ("[x0,#24]", "[sp,#-16]!").
func memImm(m arm64asm.MemImmediate) int64 {
	s := m.String()
	i := strings.IndexByte(s, '#')
	if i < 0 {
		return 0
	}
	var v int64
	fmt.Sscanf(s[i+1:], "%d", &v)
	return v
}

// extend applies a register offset's extension and shift.
func extend(x uint64, m arm64asm.MemExtend) uint64 {
	switch m.Extend.String() {
	case "uxtw":
		x = uint64(uint32(x))
	case "sxtw":
		x = uint64(int64(int32(x)))
	}
	if !m.ShiftMustBeZero && m.Amount < 64 {
		x <<= m.Amount
	}
	return x
}

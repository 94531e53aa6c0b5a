package ppc64

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/arch/ppc64/ppc64asm"
)

var _ unwind.InsnDecoder = Arch{}

// MaxInsnLen: Power instructions are 4 bytes, Power10's prefixed ones 8.
func (Arch) MaxInsnLen() int { return 8 }

// CanonicalAddr: the valid range depends on the kernel's MMU mode, which
// the core does not say.
func (Arch) CanonicalAddr(uint64) bool { return true }

// DecodeInsn decodes one instruction with ppc64asm in the arch's byte
// order and works out its memory operand: D/DS/DQ-form (d(RA), RA = 0
// meaning no base) and X-form ((RA|0) + RB) loads and stores, prefixed
// pc-relative ones. Branches through ctr and lr name that register, so a
// call through a bad pointer shows it.
func (a Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	in := unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}
	if len(code) < 4 {
		return in, errors.New("ppc64 instruction: fewer than 4 bytes")
	}
	var order binary.ByteOrder = binary.LittleEndian
	if a.bigEndian {
		order = binary.BigEndian
	}
	inst, err := ppc64asm.Decode(code, order)
	if err != nil {
		return in, fmt.Errorf("ppc64 instruction at %#x: %w", pc, err)
	}
	if inst.Op == 0 {
		return in, fmt.Errorf("ppc64 instruction at %#x: %#08x is not an instruction", pc, inst.Enc)
	}
	in.Len = inst.Len
	in.Text = ppc64asm.GNUSyntax(inst, pc)
	op := inst.Op.String()
	// The registers in operand order; gprs are the general ones, by
	// position in ops.
	var ops []int
	var gprs []int
	offset, hasOffset := int64(0), false
	for _, arg := range inst.Args {
		switch x := arg.(type) {
		case ppc64asm.Reg:
			switch {
			case x >= ppc64asm.R0 && x <= ppc64asm.R31:
				gprs = append(gprs, len(ops))
				ops = append(ops, int(x-ppc64asm.R0))
			case x >= ppc64asm.F0 && x <= ppc64asm.F31:
				ops = append(ops, F0+int(x-ppc64asm.F0))
			}
		case ppc64asm.Offset:
			offset, hasOffset = int64(x), true
		}
	}
	in.Mem = accessOf(op)
	base := -1 // position in ops of the base register (RA)
	switch {
	case in.Mem == unwind.MemNone || len(gprs) == 0:
		in.Mem = unwind.MemNone
	case hasOffset:
		// D-form: the base is the last general register. A prefixed
		// form with R = 1 is pc-relative (its last argument, an Imm,
		// is R).
		base = gprs[len(gprs)-1]
		args := argsOf(inst)
		if r, ok := args[len(args)-1].(ppc64asm.Imm); ok && r == 1 && inst.Len == 8 {
			memOperand(&in, PC, -1, offset, pc, reg)
			base = -1
		} else {
			memOperand(&in, ops[base], -1, offset, pc, reg)
		}
	case strings.HasPrefix(op, "lxvl") || strings.HasPrefix(op, "stxvl"):
		// XT, RA, RB: (RA|0) alone, RB is the length.
		base = gprs[0]
		memOperand(&in, ops[base], -1, 0, pc, reg)
	case op == "lswi" || op == "stswi" || len(gprs) == 1:
		// RT, RA, NB; dcbz RA alone.
		base = gprs[len(gprs)-1]
		memOperand(&in, ops[base], -1, 0, pc, reg)
	default:
		// X-form: (RA|0) + RB, the last two.
		base = gprs[len(gprs)-2]
		memOperand(&in, ops[base], ops[gprs[len(gprs)-1]], 0, pc, reg)
		if ops[base] == 0 {
			in.Text = zeroBase(in.Text)
		}
	}
	if inst.Enc == 0x7fe00008 { // tw 31,0,0
		in.Text, ops = "trap", nil
	}
	load := in.Mem == unwind.MemRead && strings.HasPrefix(op, "l")
	for i, r := range ops {
		if i == base && r == 0 {
			continue // (RA|0): r0 there is the literal 0
		}
		if i == 0 && load {
			continue // RT, what a load writes: not among what it reads
		}
		in.AddReg(r)
	}
	classify(&in, inst, op)
	return in, nil
}

// zeroBase writes an X-form's (RA|0) operand as binutils does when RA
// is 0: "dcbz 0,r4", not "dcbz r0,r4" (ppc64asm does so only for some
// instructions).
func zeroBase(text string) string {
	args := strings.Split(text, ",")
	if n := len(args); n >= 2 && args[n-2] == "r0" {
		args[n-2] = "0"
	} else if n >= 2 && strings.HasSuffix(args[n-2], " r0") {
		args[n-2] = strings.TrimSuffix(args[n-2], "r0") + "0"
	}
	return strings.Join(args, ",")
}

// argsOf is the instruction's arguments up to the first absent one.
func argsOf(inst ppc64asm.Inst) []ppc64asm.Arg {
	for i, a := range inst.Args {
		if a == nil {
			return inst.Args[:i]
		}
	}
	return inst.Args[:]
}

// memOperand records a memory operand (RA|0) + index + disp: r0 as the
// base (or pc-relative PC) names no register.
func memOperand(in *unwind.Insn, base, index int, disp int64, pc uint64, reg func(int) (uint64, bool)) {
	in.MemDisp = disp
	var b uint64
	okb := true
	switch base {
	case 0:
		base = -1
	case PC:
		b = pc
		base = PC
	default:
		b, okb = reg(base)
	}
	in.MemBase, in.MemIndex = base, index
	x, okx := uint64(0), true
	if index >= 0 {
		x, okx = reg(index)
	}
	if okb && okx {
		in.MemAddr, in.HasMemAddr = b+x+uint64(disp), true
	}
}

// accessOf says how an instruction uses memory, by its mnemonic: loads
// (l*) read, stores (st*) write, load-and-reserve reads, store
// conditional writes, the atomic memory operations (ldat, stwat...) both;
// dcbz writes a block; cache hints and the vector shift-control loads
// (lvsl, lvsr) touch nothing.
func accessOf(op string) unwind.MemAccess {
	switch op {
	case "li", "lis", "lvsl", "lvsr", "stop":
		return unwind.MemNone
	case "dcbz":
		return unwind.MemWrite
	case "ldat", "lwat", "stdat", "stwat":
		return unwind.MemReadWrite
	}
	switch {
	case strings.HasPrefix(op, "dcb") || strings.HasPrefix(op, "icb"):
		return unwind.MemNone
	case strings.HasPrefix(op, "st"):
		return unwind.MemWrite
	case strings.HasPrefix(op, "l") || strings.HasPrefix(op, "pl"):
		return unwind.MemRead
	case strings.HasPrefix(op, "pst"):
		return unwind.MemWrite
	}
	return unwind.MemNone
}

// classify sets the class of branches and traps: a branch that sets lr
// (bl, bctrl, bclrl) is a call; bctr a jump through ctr, blr a return;
// the traps are trapInsn's. The branches through a
// special register name it.
func classify(in *unwind.Insn, inst ppc64asm.Inst, op string) {
	switch {
	case op == "bcctr" || op == "bcctrl":
		in.AddReg(CTR)
	case op == "bclr" || op == "bclrl":
		in.AddReg(LR)
	}
	link := inst.Enc&1 == 1 && inst.Enc>>26 != 31 // LK bit of the branch forms
	switch {
	case (op == "b" || op == "ba" || op == "bl" || op == "bla" || strings.HasPrefix(op, "bc")) && link:
		in.Class = unwind.InsnCall
	case op == "bcctr":
		in.Class = unwind.InsnJump
	case op == "bclr":
		in.Class = unwind.InsnReturn
	case trapInsn(in, inst, op):
	}
}

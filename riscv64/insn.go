package riscv64

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/arch/riscv64/riscv64asm"
)

var _ unwind.InsnDecoder = Arch{}

// MaxInsnLen: RISC-V instructions are 4 bytes, or 2 when compressed (the
// low two bits of the first halfword say which).
func (Arch) MaxInsnLen() int { return 4 }

// CanonicalAddr: whether an address is valid depends on the paging mode
// (Sv39, Sv48, Sv57), which the core does not say.
func (Arch) CanonicalAddr(uint64) bool { return true }

// DecodeInsn decodes one instruction (compressed ones as the instruction
// they expand to) with riscv64asm and works out its memory operand:
// offset(rs1) of loads and stores, (rs1) of the atomics. jal/jalr
// writing ra are calls, jalr/jr through another register jumps, ret a
// return, ebreak and unimp traps.
func (Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	in := unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}
	if len(code) < 2 {
		return in, errors.New("RISC-V instruction: fewer than 2 bytes")
	}
	inst, err := riscv64asm.Decode(code)
	if err != nil {
		return in, fmt.Errorf("RISC-V instruction at %#x: %w", pc, err)
	}
	in.Len = inst.Len
	in.Text = abiRegNames(riscv64asm.GNUSyntax(inst))
	op := inst.Op.String()
	var jumpReg, rd = -1, -1
	// A load's, an atomic's and a store-conditional's first register is
	// what they write (rd), not read.
	writesRd := isLoad(op) || strings.HasPrefix(op, "AMO") || strings.HasPrefix(op, "SC.")
	for i, arg := range inst.Args {
		switch x := arg.(type) {
		case riscv64asm.Reg:
			if r, ok := regNum(x); ok {
				if i == 0 {
					rd = r
				}
				if r != 0 && !(i == 0 && writesRd) {
					in.AddReg(r)
				}
			}
		case riscv64asm.RegOffset:
			base, ok := regNum(x.OfsReg)
			if !ok {
				continue
			}
			if base != 0 {
				in.AddReg(base)
			}
			if op == "JALR" {
				jumpReg = base
				continue
			}
			memOperand(&in, base, int64(x.Ofs.Imm), reg)
		case riscv64asm.RegPtr:
			// The atomics' (rs1): its register is unexported, but
			// printed.
			base, ok := parseRegPtr(x.String())
			if !ok {
				continue
			}
			in.AddReg(base)
			memOperand(&in, base, 0, reg)
		}
	}
	switch {
	case in.MemBase >= 0 || in.HasMemAddr:
		in.Mem = accessOf(op)
	case op == "JAL" && rd == RA:
		in.Class = unwind.InsnCall
	case op == "JALR" && rd == RA:
		in.Class = unwind.InsnCall
	case op == "JALR" && rd == 0 && jumpReg == RA:
		in.Class = unwind.InsnReturn
	case op == "JALR" && rd == 0:
		in.Class = unwind.InsnJump
	case op == "EBREAK" || op == "C.EBREAK" || op == "C.UNIMP" || inst.Enc == 0xc0001073: // unimp: csrrw x0, cycle, x0
		in.Class = unwind.InsnTrap
	}
	if in.Class == unwind.InsnReturn {
		in.Regs = []int{RA}
	}
	return in, nil
}

// memOperand records offset(base); x0 as the base is the address 0.
func memOperand(in *unwind.Insn, base int, off int64, reg func(int) (uint64, bool)) {
	in.MemDisp = off
	if base == 0 {
		in.MemAddr, in.HasMemAddr = uint64(off), true
		return
	}
	in.MemBase = base
	if v, ok := reg(base); ok {
		in.MemAddr, in.HasMemAddr = v+uint64(off), true
	}
}

// accessOf: stores (s*, fs*) write, store-conditional writes, the AMOs
// read and write, the rest (loads, lr) read.
func accessOf(op string) unwind.MemAccess {
	switch {
	case strings.HasPrefix(op, "AMO"):
		return unwind.MemReadWrite
	case strings.HasPrefix(op, "S") || strings.HasPrefix(op, "FS") || strings.HasPrefix(op, "C.S") || strings.HasPrefix(op, "C.FS"):
		return unwind.MemWrite
	}
	return unwind.MemRead
}

// isLoad reports whether op loads from memory into a register: the
// integer and floating-point loads, compressed or not, and
// load-reserved.
func isLoad(op string) bool {
	for _, p := range []string{"L", "FL", "C.L", "C.FL"} {
		if strings.HasPrefix(op, p) && !strings.HasPrefix(op, "LUI") && !strings.HasPrefix(op, "C.LI") && !strings.HasPrefix(op, "C.LUI") {
			return true
		}
	}
	return false
}

// regNum maps an integer or floating-point register to its DWARF number.
func regNum(r riscv64asm.Reg) (int, bool) {
	switch {
	case r <= riscv64asm.X31:
		return int(r - riscv64asm.X0), true
	case r >= riscv64asm.F0 && r <= riscv64asm.F31:
		return F0 + int(r-riscv64asm.F0), true
	}
	return 0, false
}

// parseRegPtr reads the register of a printed RegPtr, "(x10)".
func parseRegPtr(s string) (int, bool) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "(x"), ")")
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 31 {
		return 0, false
	}
	return n, true
}

// numericReg is compiled on first use: a regexp compiled at package
// init is paid by every run, for any core's architecture.
var numericReg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b([xf])([0-9]+)\b`) })

// fpABINames are f0–f31's ABI names, as gdb and objdump print them.
var fpABINames = [32]string{
	"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7",
	"fs0", "fs1", "fa0", "fa1", "fa2", "fa3", "fa4", "fa5",
	"fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7",
	"fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
}

// abiRegNames writes riscv64asm's x10 and f15 as gdb and objdump do:
// a0, fa5.
func abiRegNames(s string) string {
	return numericReg().ReplaceAllStringFunc(s, func(m string) string {
		n, err := strconv.Atoi(m[1:])
		if err != nil || n > 31 {
			return m
		}
		if m[0] == 'x' {
			return abiNames[n]
		}
		return fpABINames[n]
	})
}

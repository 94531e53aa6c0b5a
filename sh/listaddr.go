package sh

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// maxListAddrInsns bounds how many instructions of _U_dyn_info_list_addr
// are evaluated (gcc's PIC form has 8, the delay slot included).
const maxListAddrInsns = 12

// DynListAddr is unwind.DynListArch: what libunwind's exported
// _U_dyn_info_list_addr (at fn) returns, computed by evaluating its code
// through "rts" and its delay slot. gcc compiles it to "mov.l
// @(disp,pc),r0" of the list's address from the literal pool
// (position-dependent), or, PIC, to the GOT's address from "mova" and a
// GOTPC literal in r12, then r0 = the GOTOFF literal plus r12 (a hidden
// list) or the GOT entry at r0 + r12; r12 is pushed and popped around
// it.
func (Arch) DynListAddr(as unwind.AddrSpace, f *elf.File, bias, fn uint64) (uint64, error) {
	var regs [16]uint32
	ret := false
	for i, pc := 0, fn; i < maxListAddrInsns; i, pc = i+1, pc+2 {
		insn, ok := readHalf(as, pc)
		if !ok {
			return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: code at %#x: %w", fn, pc, unwind.ErrUnavailable)
		}
		if ret {
			// The delay slot after "rts".
			if err := evalListInsn(as, &regs, pc, insn); err != nil {
				return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: %w", fn, err)
			}
			return uint64(regs[0]), nil
		}
		if insn == 0x000b { // rts
			ret = true
			continue
		}
		if err := evalListInsn(as, &regs, pc, insn); err != nil {
			return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: %w", fn, err)
		}
	}
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: no return in %d instructions: %w", fn, maxListAddrInsns, unwind.ErrNoInfo)
}

// evalListInsn applies the instruction insn at pc to regs.
func evalListInsn(as unwind.AddrSpace, regs *[16]uint32, pc uint64, insn uint16) error {
	n, m := insn>>8&0xf, insn>>4&0xf
	pool := (pc &^ 3) + 4 + 4*uint64(insn&0xff)
	load := func(addr uint64) (uint32, error) {
		v, err := readWord(as, addr)
		if err != nil {
			return 0, fmt.Errorf("word at %#x: %w", addr, err)
		}
		return uint32(v), nil
	}
	var err error
	switch {
	case insn == 0x0009: // nop
	case insn&0xff0f == 0x2f06, insn&0xf0ff == 0x60f6: // push, pop (of r12)
	case insn&0xf000 == 0xd000: // mov.l @(disp,pc),rN
		regs[n], err = load(pool)
	case insn&0xff00 == 0xc700: // mova @(disp,pc),r0
		regs[0] = uint32(pool)
	case insn&0xf00f == 0x300c: // add rM,rN
		regs[n] += regs[m]
	case insn&0xf00f == 0x6003: // mov rM,rN
		regs[n] = regs[m]
	case insn&0xf00f == 0x000e: // mov.l @(r0,rM),rN
		regs[n], err = load(uint64(regs[0] + regs[m]))
	default:
		return fmt.Errorf("instruction %#04x at %#x: %w", insn, pc, unwind.ErrNoInfo)
	}
	return err
}

package mips

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// maxListAddrInsns bounds how many instructions of _U_dyn_info_list_addr
// are evaluated (gcc's forms have 5).
const maxListAddrInsns = 8

// Registers the evaluation reads: v0 (the result), t9 (a PIC function's
// own address at its entry), ra (for the return).
const (
	regV0 = 2
	regT9 = 25
)

// DynListAddr is unwind.DynListArch: what libunwind's exported
// _U_dyn_info_list_addr (at fn) returns, computed by evaluating its code
// through the return and its delay slot. gcc compiles it, PIC or not, to
// a gp (o32) or v1 (n64) computed from t9 by lui/addiu/addu, then a load
// of the list's address from the GOT in the delay slot of "jr ra"; a
// non-PIC build may instead build the address by lui and addiu or ori.
func (a Arch) DynListAddr(as unwind.AddrSpace, f *elf.File, bias, fn uint64) (uint64, error) {
	var regs [32]uint64
	regs[regT9] = fn
	ret := false
	for i, pc := 0, fn; i < maxListAddrInsns; i, pc = i+1, pc+4 {
		insn, ok := a.readInsn(as, pc)
		if !ok {
			return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: code at %#x: %w", fn, pc, unwind.ErrUnavailable)
		}
		if err := a.evalListInsn(as, &regs, insn, &ret); err != nil {
			return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: %w", fn, err)
		}
		if ret && !isJrRA(insn) {
			// The delay slot after "jr ra" has run.
			return regs[regV0], nil
		}
	}
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: no return in %d instructions: %w", fn, maxListAddrInsns, unwind.ErrNoInfo)
}

// evalListInsn applies one instruction to regs; ret is set by "jr ra".
func (a Arch) evalListInsn(as unwind.AddrSpace, regs *[32]uint64, insn uint32, ret *bool) error {
	rs, rt, rd := insn>>21&0x1f, insn>>16&0x1f, insn>>11&0x1f
	simm := uint64(int64(int16(insn)))
	set := func(r uint32, v uint64) {
		if r != 0 {
			regs[r] = a.narrow(v)
		}
	}
	switch op := insn >> 26; {
	case op == 0x0f: // lui
		set(rt, uint64(int64(int32(insn<<16))))
	case op == 0x09, op == 0x19: // addiu, daddiu
		set(rt, regs[rs]+simm)
	case op == 0x0d: // ori
		set(rt, regs[rs]|uint64(insn&0xffff))
	case op == 0x23, op == 0x37: // lw, ld
		size := 4
		if op == 0x37 {
			size = 8
		}
		v, err := readSized(as, a.narrow(regs[rs]+simm), size)
		if err != nil {
			return err
		}
		set(rt, v)
	case op == 0 && (insn&0x3f == 0x21 || insn&0x3f == 0x2d): // addu, daddu
		set(rd, regs[rs]+regs[rt])
	case isJrRA(insn):
		*ret = true
	case insn == 0: // nop
	default:
		return fmt.Errorf("instruction %#08x not evaluated: %w", insn, unwind.ErrNoInfo)
	}
	return nil
}

// isJrRA reports whether insn is "jr ra".
func isJrRA(insn uint32) bool { return insn>>26 == 0 && insn&0x3f == 0x08 && insn>>21&0x1f == RA }

// readSized reads a 4- or 8-byte word; a 4-byte one is sign-extended,
// as lw does.
func readSized(as unwind.AddrSpace, addr uint64, size int) (uint64, error) {
	var b [8]byte
	if err := as.ReadMem(addr, b[:size]); err != nil {
		return 0, err
	}
	if size == 4 {
		return uint64(int64(int32(as.ByteOrder().Uint32(b[:])))), nil
	}
	return as.ByteOrder().Uint64(b[:]), nil
}

package aarch64

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// DynListAddr is unwind.DynListArch: what libunwind's exported
// _U_dyn_info_list_addr (at fn) returns, decoded from its code. On
// aarch64 that is "adrp x0, page; add x0, x0, :lo12:list; ret" (the list
// in the same object) or "adrp x0, page; ldr x0, [x0, :lo12:got]; ret"
// (its address from the GOT), possibly after a landing pad or a PAC hint
// (bti c, paciasp: hint instructions).
func (Arch) DynListAddr(as unwind.AddrSpace, _ *elf.File, _, fn uint64) (uint64, error) {
	var page uint64
	havePage := false
	pc := fn
	for i := 0; i < 6; i, pc = i+1, pc+4 {
		insn, ok := readInsn(as, pc)
		switch {
		case !ok:
			return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: instruction at %#x unreadable: %w", fn, pc, unwind.ErrNoInfo)
		case insn&0xfffff01f == 0xd503201f: // HINT: nop, bti, paciasp, ...
			continue
		case insn&0x9f00001f == 0x90000000: // ADRP x0
			imm := int64(insn>>29&3|(insn>>5&0x7ffff)<<2) << 43 >> 31 // sign-extend 21 bits, then << 12
			page, havePage = uint64(int64(pc&^0xfff)+imm), true
		case havePage && insn&0xffc003ff == 0x91000000: // ADD x0, x0, #imm12 (no shift)
			return page + uint64(insn>>10&0xfff), nil
		case havePage && insn&0xffc003ff == 0xf9400000: // LDR x0, [x0, #imm12*8]
			slot := page + uint64(insn>>10&0xfff)*8
			v, err := readWord(as, slot)
			if err != nil {
				return 0, fmt.Errorf("GOT slot %#x: %w", slot, err)
			}
			return v, nil
		default:
			return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: instruction %#08x at %#x is not adrp/add/ldr of x0: %w", fn, insn, pc, unwind.ErrNoInfo)
		}
	}
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: no address of the list in its first instructions: %w", fn, unwind.ErrNoInfo)
}

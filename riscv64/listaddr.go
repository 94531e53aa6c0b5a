package riscv64

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// maxListAddrInsns bounds how many instructions of _U_dyn_info_list_addr
// are evaluated (gcc's forms have 2 or 3).
const maxListAddrInsns = 8

// Registers the evaluation reads: ra for the return, gp for the
// linker's gp-relative relaxation, a0 for the result.
const (
	regRA = 1
	regGP = 3
	regA0 = 10
)

// DynListAddr is unwind.DynListArch: what libunwind's exported
// _U_dyn_info_list_addr (at fn) returns, computed by evaluating its code
// up to the ret. gcc compiles it to "auipc a0; addi a0,a0" (the list in
// the same object), "auipc a0; ld a0,(a0)" (its address from the GOT,
// -fPIC), which the linker relaxes in a non-PIE executable to "addi
// a0,gp,off": gp is the object's __global_pointer$ (where its _start
// points gp), taken from f's symbol table.
func (Arch) DynListAddr(as unwind.AddrSpace, f *elf.File, bias, fn uint64) (uint64, error) {
	e := listAddrEval{as: as, pc: fn}
	if gp, ok := globalPointer(f); ok {
		e.set(regGP, gp+bias)
	}
	v, err := e.run()
	if err != nil {
		return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: %w", fn, err)
	}
	return v, nil
}

// globalPointer is the link-time value of f's __global_pointer$.
func globalPointer(f *elf.File) (uint64, bool) {
	if f == nil {
		return 0, false
	}
	syms, err := f.Symbols()
	if err != nil {
		return 0, false
	}
	for _, s := range syms {
		if s.Name == "__global_pointer$" {
			return s.Value, true
		}
	}
	return 0, false
}

// listAddrEval evaluates straight-line RISC-V code: x0–x31, each known
// or not (x0 always 0).
type listAddrEval struct {
	as    unwind.AddrSpace
	pc    uint64
	regs  [32]uint64
	known uint32
}

func (e *listAddrEval) set(r int, v uint64) {
	if r != 0 {
		e.regs[r], e.known = v, e.known|1<<r
	}
}

func (e *listAddrEval) get(r int) (uint64, bool) {
	return e.regs[r], r == 0 || e.known&(1<<r) != 0
}

// run evaluates from e.pc to the ret and returns a0.
func (e *listAddrEval) run() (uint64, error) {
	for n := 0; n < maxListAddrInsns; n++ {
		h, err := cfirow.ReadSized(e.as, e.pc, 2)
		if err != nil {
			return 0, fmt.Errorf("code at %#x unreadable: %v: %w", e.pc, err, unwind.ErrNoInfo)
		}
		if h&3 != 3 { // compressed: only c.jr ra (ret) and c.nop
			switch h {
			case 0x8082:
				return e.result()
			case 0x0001:
				e.pc += 2
				continue
			}
			return 0, fmt.Errorf("instruction %#04x at %#x is not one gcc's forms use: %w", h, e.pc, unwind.ErrNoInfo)
		}
		w, err := cfirow.ReadSized(e.as, e.pc, 4)
		if err != nil {
			return 0, fmt.Errorf("code at %#x unreadable: %v: %w", e.pc, err, unwind.ErrNoInfo)
		}
		insn := uint32(w)
		rd, rs1 := int(insn>>7&31), int(insn>>15&31)
		immI := uint64(int64(int32(insn) >> 20))
		switch {
		case insn == 0x00008067: // jalr x0,0(ra): ret
			return e.result()
		case insn&0x7f == 0x17: // auipc
			e.set(rd, e.pc+uint64(int64(int32(insn&0xfffff000))))
		case insn&0x7f == 0x37: // lui
			e.set(rd, uint64(int64(int32(insn&0xfffff000))))
		case insn&0x707f == 0x13: // addi
			v, ok := e.get(rs1)
			e.forget(rd)
			if ok {
				e.set(rd, v+immI)
			}
		case insn&0x707f == 0x3003: // ld
			v, ok := e.get(rs1)
			e.forget(rd)
			if !ok {
				break
			}
			m, err := cfirow.ReadSized(e.as, v+immI, 8)
			if err != nil {
				return 0, fmt.Errorf("load from %#x at %#x: %v: %w", v+immI, e.pc, err, unwind.ErrNoInfo)
			}
			e.set(rd, m)
		default:
			return 0, fmt.Errorf("instruction %#08x at %#x is not one gcc's forms use: %w", insn, e.pc, unwind.ErrNoInfo)
		}
		e.pc += 4
	}
	return 0, fmt.Errorf("no ret in %d instructions: %w", maxListAddrInsns, unwind.ErrNoInfo)
}

func (e *listAddrEval) forget(r int) { e.known &^= 1 << r }

// result is a0 at the ret.
func (e *listAddrEval) result() (uint64, error) {
	if v, ok := e.get(regA0); ok {
		return v, nil
	}
	return 0, fmt.Errorf("a0 unknown at the ret at %#x: %w", e.pc, unwind.ErrNoInfo)
}

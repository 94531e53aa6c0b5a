package arm

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// maxListAddrInsns bounds how many instructions of _U_dyn_info_list_addr
// are evaluated (gcc's longest form, -fPIC, has 9).
const maxListAddrInsns = 16

// DynListAddr is unwind.DynListArch: what libunwind's exported
// _U_dyn_info_list_addr (at fn; bit 0 set for Thumb code) returns,
// computed by evaluating its code up to the "bx lr". gcc compiles it, in
// ARM and Thumb code alike, to a PC-relative load of an offset from the
// literal pool after the function and an add of the pc ("ldr r0,
// [pc,#n]; add r0,pc"), with -fPIC also a load of the GOT slot's offset
// and "ldr r3,[r3,r2]" from the GOT, or without PIE to "movw r0; movt
// r0". Those, moves between registers and the function's own stack
// adjustment and spills are what listAddrEval knows. libunwind's dynamic
// unwind info itself is not applied on arm (rule.go).
func (Arch) DynListAddr(as unwind.AddrSpace, _ *elf.File, _, fn uint64) (uint64, error) {
	e := listAddrEval{as: as, pc: fn &^ 1}
	var v uint64
	var err error
	if fn&1 != 0 {
		v, err = e.runThumb()
	} else {
		v, err = e.runARM()
	}
	if err != nil {
		return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: %w", fn, err)
	}
	return v, nil
}

// listAddrEval evaluates straight-line ARM or Thumb code: r0–r15, each
// known or not (sp's value is never needed).
type listAddrEval struct {
	as    unwind.AddrSpace
	pc    uint64
	regs  [16]uint32
	known uint16
}

func (e *listAddrEval) set(r int, v uint32) { e.regs[r], e.known = v, e.known|1<<r }
func (e *listAddrEval) forget(r int)        { e.known &^= 1 << r }
func (e *listAddrEval) get(r int) (uint32, bool) {
	return e.regs[r], e.known&(1<<r) != 0
}

// load sets rt to the word at addr.
func (e *listAddrEval) load(rt int, addr uint32) error {
	v, err := cfirow.ReadSized(e.as, uint64(addr), 4)
	if err != nil {
		return fmt.Errorf("load from %#x at %#x: %v: %w", addr, e.pc, err, unwind.ErrNoInfo)
	}
	e.set(rt, uint32(v))
	return nil
}

// loadIndexed is "ldr rt,[rn,rm]": rt is the word at rn+rm where both
// are known, unknown otherwise.
func (e *listAddrEval) loadIndexed(rt, rn, rm int) error {
	a, ok1 := e.get(rn)
	b, ok2 := e.get(rm)
	if e.forget(rt); ok1 && ok2 {
		return e.load(rt, a+b)
	}
	return nil
}

// add sets rd to a+b where both are known.
func (e *listAddrEval) add(rd int, a, b uint32, ok bool) {
	if e.forget(rd); ok {
		e.set(rd, a+b)
	}
}

// result is r0 at the return.
func (e *listAddrEval) result() (uint64, error) {
	if v, ok := e.get(0); ok {
		return uint64(v), nil
	}
	return 0, fmt.Errorf("r0 unknown at the return at %#x: %w", e.pc, unwind.ErrNoInfo)
}

// runARM evaluates ARM code (the pc reads as the instruction's address
// plus 8); every instruction must be unconditional.
func (e *listAddrEval) runARM() (uint64, error) {
	for n := 0; n < maxListAddrInsns; n, e.pc = n+1, e.pc+4 {
		w, err := cfirow.ReadSized(e.as, e.pc, 4)
		if err != nil {
			return 0, fmt.Errorf("code at %#x unreadable: %v: %w", e.pc, err, unwind.ErrNoInfo)
		}
		insn := uint32(w)
		pc := uint32(e.pc) + 8
		rd, rn, rm := int(insn>>12&15), int(insn>>16&15), int(insn&15)
		imm16 := insn>>4&0xf000 | insn&0xfff
		switch {
		case insn == 0xe12fff1e: // bx lr
			return e.result()
		case insn>>28 != 0xe:
			return 0, fmt.Errorf("conditional instruction %#08x at %#x: %w", insn, e.pc, unwind.ErrNoInfo)
		case insn&0x0f7f0000 == 0x051f0000: // ldr rd,[pc,#±imm12]
			addr := pc + insn&0xfff
			if insn&(1<<23) == 0 {
				addr = pc - insn&0xfff
			}
			if err := e.load(rd, addr); err != nil {
				return 0, err
			}
		case insn&0x0fff0ff0 == 0x008f0000: // add rd,pc,rm
			v, ok := e.get(rm)
			e.add(rd, pc, v, ok)
		case insn&0x0ff00ff0 == 0x07900000: // ldr rd,[rn,rm]
			if err := e.loadIndexed(rd, rn, rm); err != nil {
				return 0, err
			}
		case insn&0x0fff0ff0 == 0x01a00000: // mov rd,rm
			v, ok := e.get(rm)
			e.add(rd, v, 0, ok)
		case insn&0x0ff00000 == 0x03000000: // movw rd,#imm16
			e.set(rd, imm16)
		case insn&0x0ff00000 == 0x03400000: // movt rd,#imm16
			v, ok := e.get(rd)
			e.add(rd, v&0xffff, imm16<<16, ok)
		case insn&0xfffff000 == 0xe24dd000, insn&0xfffff000 == 0xe28dd000, // sub/add sp,sp,#imm
			insn&0xffff0000 == 0xe58d0000, insn == 0xe320f000: // str rt,[sp,#imm]; nop
		default:
			return 0, fmt.Errorf("instruction %#08x at %#x is not one gcc's forms use: %w", insn, e.pc, unwind.ErrNoInfo)
		}
	}
	return 0, fmt.Errorf("no bx lr in %d instructions: %w", maxListAddrInsns, unwind.ErrNoInfo)
}

// runThumb evaluates Thumb code (the pc reads as the instruction's
// address plus 4, word-aligned for literal loads).
func (e *listAddrEval) runThumb() (uint64, error) {
	for n := 0; n < maxListAddrInsns; n++ {
		h, err := cfirow.ReadSized(e.as, e.pc, 2)
		if err != nil {
			return 0, fmt.Errorf("code at %#x unreadable: %v: %w", e.pc, err, unwind.ErrNoInfo)
		}
		insn := uint16(h)
		pc := uint32(e.pc) + 4
		if insn>>11 >= 0x1d { // a 32-bit instruction: only movw and movt
			h2, err := cfirow.ReadSized(e.as, e.pc+2, 2)
			if err != nil {
				return 0, fmt.Errorf("code at %#x unreadable: %v: %w", e.pc+2, err, unwind.ErrNoInfo)
			}
			lo := uint32(h2)
			rd := int(lo >> 8 & 15)
			imm16 := uint32(insn&15)<<12 | uint32(insn>>10&1)<<11 | lo>>12&7<<8 | lo&0xff
			switch insn & 0xfbf0 {
			case 0xf240: // movw
				e.set(rd, imm16)
			case 0xf2c0: // movt
				v, ok := e.get(rd)
				e.add(rd, v&0xffff, imm16<<16, ok)
			default:
				return 0, fmt.Errorf("instruction %#04x %#04x at %#x is not one gcc's forms use: %w", insn, lo, e.pc, unwind.ErrNoInfo)
			}
			e.pc += 4
			continue
		}
		rt := int(insn >> 8 & 7)
		switch {
		case insn == 0x4770: // bx lr
			return e.result()
		case insn&0xf800 == 0x4800: // ldr rt,[pc,#imm8*4]
			if err := e.load(rt, pc&^3+uint32(insn&0xff)*4); err != nil {
				return 0, err
			}
		case insn&0xff78 == 0x4478: // add rdn,pc
			rdn := int(insn>>4&8 | insn&7)
			v, ok := e.get(rdn)
			e.add(rdn, v, pc, ok)
		case insn&0xfe00 == 0x5800: // ldr rt,[rn,rm]
			if err := e.loadIndexed(int(insn&7), int(insn>>3&7), int(insn>>6&7)); err != nil {
				return 0, err
			}
		case insn&0xff00 == 0x4600: // mov rd,rm
			rd, rm := int(insn>>4&8|insn&7), int(insn>>3&15)
			v, ok := e.get(rm)
			e.add(rd, v, 0, ok)
		case insn&0xff00 == 0xb000, insn&0xf800 == 0x9000, insn == 0xbf00: // add/sub sp,#imm; str rt,[sp,#imm]; nop
		default:
			return 0, fmt.Errorf("instruction %#04x at %#x is not one gcc's forms use: %w", insn, e.pc, unwind.ErrNoInfo)
		}
		e.pc += 2
	}
	return 0, fmt.Errorf("no bx lr in %d instructions: %w", maxListAddrInsns, unwind.ErrNoInfo)
}

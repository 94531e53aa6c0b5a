package ppc64

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// maxListAddrInsns bounds how many instructions of _U_dyn_info_list_addr
// are evaluated: gcc's longest form (32-bit, the GOT pointer in r30
// saved and restored around it) has 14.
const maxListAddrInsns = 24

// DynListAddr is unwind.DynListArch: what libunwind's exported
// _U_dyn_info_list_addr (at fn) returns, computed by evaluating its code
// up to the blr. gcc compiles it to a handful of forms, all made of the
// few instructions listAddrEval knows: ELFv2 computes its TOC pointer at
// the global entry point ("lis r2" or "addis r2,r12" from the entry
// address in r12, then "addi r2,r2"), then "addi r3,r2,off" (or "ld
// r3,off(r2)" from the GOT); ELFv1's symbol is a function descriptor in
// .opd, holding the entry point and the TOC pointer the code starts with;
// 32-bit code finds its GOT with "bcl 20,31,.+4; mflr r30", adds the
// offset with addis/addi and loads the address with lwz (its own
// prologue and epilogue, stores and loads of r1's frame, evaluate to
// unknown values and change nothing that matters).
func (a Arch) DynListAddr(as unwind.AddrSpace, f *elf.File, bias, fn uint64) (uint64, error) {
	l := a.layout()
	e := listAddrEval{l: l, as: as, pc: fn}
	e.set(12, fn)
	if d := opdSection(f); d != nil && fn-bias >= d.Addr && fn-bias-d.Addr < d.Size {
		entry, err1 := l.readWord(as, fn)
		toc, err2 := l.readWord(as, fn+8)
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("_U_dyn_info_list_addr's descriptor at %#x: %v: %w", fn, firstErr(err1, err2), unwind.ErrNoInfo)
		}
		e.pc = entry
		e.set(TOC, toc)
	}
	v, err := e.run()
	if err != nil {
		return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: %w", fn, err)
	}
	return v, nil
}

// opdSection is an ELFv1 object's .opd (its function descriptors), or
// nil.
func opdSection(f *elf.File) *elf.Section {
	if f == nil || f.Machine != elf.EM_PPC64 {
		return nil
	}
	return f.Section(".opd")
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// listAddrEval evaluates straight-line Power code: the general registers
// and lr, each known or not.
type listAddrEval struct {
	l     *layout
	as    unwind.AddrSpace
	pc    uint64
	regs  [32]uint64
	known uint32
	lr    uint64
	lrOK  bool
}

func (e *listAddrEval) set(r int, v uint64) {
	if e.l.word == 4 {
		v &= 0xffffffff
	}
	e.regs[r], e.known = v, e.known|1<<r
}

func (e *listAddrEval) forget(r int) { e.known &^= 1 << r }

// base is the value of rA as an addi, addis or load base: 0 for r0.
func (e *listAddrEval) base(r int) (uint64, bool) {
	if r == 0 {
		return 0, true
	}
	return e.regs[r], e.known&(1<<r) != 0
}

// run evaluates from e.pc to the blr and returns r3.
func (e *listAddrEval) run() (uint64, error) {
	for n := 0; n < maxListAddrInsns; n, e.pc = n+1, e.pc+4 {
		insn, ok := readInsn(e.as, e.pc)
		if !ok {
			return 0, fmt.Errorf("code at %#x unreadable: %w", e.pc, unwind.ErrNoInfo)
		}
		rt, ra := int(insn>>21&31), int(insn>>16&31)
		simm := uint64(int64(int16(insn)))
		switch op := insn >> 26; {
		case insn == 0x4e800020: // blr
			if e.known&(1<<3) == 0 {
				return 0, fmt.Errorf("r3 unknown at the blr at %#x: %w", e.pc, unwind.ErrNoInfo)
			}
			return e.regs[3], nil
		case insn == 0x429f0005: // bcl 20,31,.+4: lr = the next instruction
			e.lr, e.lrOK = e.pc+4, true
		case insn&0xfc1fffff == 0x7c0802a6: // mflr rt
			if e.forget(rt); e.lrOK {
				e.set(rt, e.lr)
			}
		case insn&0xfc1fffff == 0x7c0803a6: // mtlr rs
			e.lrOK = false
		case op == 14 || op == 15: // addi, addis (li, lis with ra = 0)
			b, ok := e.base(ra)
			if e.forget(rt); !ok {
				break
			}
			if op == 15 {
				simm <<= 16
			}
			e.set(rt, b+simm)
		case op == 32 || op == 58 && insn&3 == 0: // lwz, ld
			size, disp := 4, simm
			if op == 58 {
				size, disp = 8, simm&^3
			}
			b, ok := e.base(ra)
			if e.forget(rt); !ok || ra == SP {
				break // the function's own frame: not needed
			}
			v, err := cfirow.ReadSized(e.as, b+disp, size)
			if err != nil {
				return 0, fmt.Errorf("load from %#x at %#x: %v: %w", b+disp, e.pc, err, unwind.ErrNoInfo)
			}
			e.set(rt, v)
		case op == 24 && insn&0x03ffffff == 0: // nop (ori 0,0,0)
		case op == 36 || op == 37 || op == 62: // stw, stwu, std/stdu: stores to the frame
			if op == 37 || op == 62 && insn&3 == 1 {
				e.forget(ra)
			}
		default:
			return 0, fmt.Errorf("instruction %#08x at %#x is not one gcc's forms use: %w", insn, e.pc, unwind.ErrNoInfo)
		}
	}
	return 0, fmt.Errorf("no blr in %d instructions: %w", maxListAddrInsns, unwind.ErrNoInfo)
}

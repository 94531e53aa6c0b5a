package analyze

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/arch/x86/x86asm"
)

// Symbols the JIT descriptions are found by. libunwind keeps
// _U_dyn_info_list hidden in its shared library (the symbol exists only
// in an unstripped build or a static link), but exports
// _U_dyn_info_list_addr, whose body returns the list's address.
const (
	symDynInfoList     = "_U_dyn_info_list"
	symDynInfoListAddr = "_U_dyn_info_list_addr"
	symJITDescriptor   = "__jit_debug_descriptor"
)

// jitSymbols are the JIT-related symbols of one object, by name
// (link-time values).
type jitSymbols map[string]uint64

func lookupJITSymbols(o *elfx.Object) jitSymbols {
	return o.SymbolValues(symDynInfoList, symDynInfoListAddr, symJITDescriptor)
}

// findDynInfoLists returns the addresses of the libunwind registration
// lists in the core's modules: from the symbol table where it has the
// variable, else by decoding _U_dyn_info_list_addr.
func findDynInfoLists(t *target) (addrs []uint64, errs []error) {
	seen := map[uint64]bool{}
	for _, m := range t.modules {
		if m.obj == nil {
			continue
		}
		syms := lookupJITSymbols(m.obj)
		var addr uint64
		if v, ok := syms[symDynInfoList]; ok {
			addr = v + m.bias
		} else if v, ok := syms[symDynInfoListAddr]; ok {
			a, err := listAddrFromCode(t, m, v+m.bias)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %w", m.core.Path, symDynInfoListAddr, err))
				continue
			}
			addr = a
		} else {
			continue
		}
		if !seen[addr] {
			seen[addr] = true
			addrs = append(addrs, addr)
		}
	}
	return addrs, errs
}

// listAddrFromCode finds what _U_dyn_info_list_addr at fn (the symbol's
// run-time value in module m) returns by decoding its first instructions:
// x86-64, PA-RISC and IA-64 code are decoded.
func listAddrFromCode(t *target, m *module, fn uint64) (uint64, error) {
	switch m.obj.ELF().Machine {
	case elf.EM_X86_64:
		return x86ListAddr(t, fn)
	case elf.EM_PARISC:
		return hppaListAddrOf(t, m, fn)
	case elf.EM_IA_64:
		return ia64ListAddrOf(t, m, fn)
	}
	return 0, fmt.Errorf("decoding %v code is not supported", m.obj.ELF().Machine)
}

// ia64ListAddrDecoder is what the IA-64 arch package implements to
// evaluate _U_dyn_info_list_addr's bundles (analyze cannot import it:
// its tests import analyze).
type ia64ListAddrDecoder interface {
	ListAddrFromCode(code []byte, pc, gp uint64, read func(addr uint64, p []byte) error, order binary.ByteOrder) (uint64, error)
}

// ia64ListAddrBytes is how much of the function is read: the decoder
// looks at no more than eight bundles.
const ia64ListAddrBytes = 8 * 16

// ia64ListAddrOf reads the function's bundles from the target and has
// the IA-64 arch evaluate them with gp the module's global pointer: its
// DT_PLTGOT (what libunwind and the loader use as gp), or the __gp
// symbol in an object without a dynamic section (a static executable).
// On IA-64 a function symbol is its code address, not a descriptor.
func ia64ListAddrOf(t *target, m *module, fn uint64) (uint64, error) {
	arch, err := unwind.LookupArch(t.core.Arch)
	if err != nil {
		return 0, err
	}
	dec, ok := arch.(ia64ListAddrDecoder)
	if !ok {
		return 0, fmt.Errorf("the %s arch does not decode code", t.core.Arch)
	}
	var gp uint64
	if v, err := m.obj.ELF().DynValue(elf.DT_PLTGOT); err == nil && len(v) > 0 {
		gp = v[0] + m.bias
	} else if v, ok := m.obj.SymbolValues("__gp")["__gp"]; ok {
		gp = v + m.bias
	} else {
		return 0, errors.New("no global pointer (neither DT_PLTGOT nor __gp)")
	}
	// Read bundle by bundle: the function may end its mapping.
	code := make([]byte, 0, ia64ListAddrBytes)
	var b [16]byte
	for len(code) < ia64ListAddrBytes {
		if err := t.ReadMem(fn+uint64(len(code)), b[:]); err != nil {
			if len(code) == 0 {
				return 0, fmt.Errorf("code at %#x: %w", fn, err)
			}
			break
		}
		code = append(code, b[:]...)
	}
	return dec.ListAddrFromCode(code, fn, gp, t.ReadMem, t.ByteOrder())
}

// x86ListAddr decodes "lea list(%rip),%rax; ret" (a position-independent
// build) or a load of the list's address from the GOT ("mov
// got(%rip),%rax").
func x86ListAddr(t *target, fn uint64) (uint64, error) {
	var code [32]byte
	if err := t.ReadMem(fn, code[:]); err != nil {
		return 0, err
	}
	b, pc := code[:], fn
	if bytes.HasPrefix(b, []byte{0xf3, 0x0f, 0x1e, 0xfa}) { // endbr64: x86asm misreads it
		b, pc = b[4:], pc+4
	}
	for i := 0; i < 3 && len(b) > 0; i++ {
		inst, err := x86asm.Decode(b, 64)
		if err != nil {
			return 0, fmt.Errorf("at %#x: %w", pc, err)
		}
		next := pc + uint64(inst.Len)
		if inst.Op == x86asm.RET {
			break
		}
		if (inst.Op == x86asm.LEA || inst.Op == x86asm.MOV) && inst.Args[0] == x86asm.RAX {
			if mem, ok := inst.Args[1].(x86asm.Mem); ok && mem.Base == x86asm.RIP && mem.Index == 0 {
				ea := next + uint64(mem.Disp)
				if inst.Op == x86asm.LEA {
					return ea, nil
				}
				var w [8]byte
				if err := t.ReadMem(ea, w[:]); err != nil {
					return 0, fmt.Errorf("GOT slot %#x: %w", ea, err)
				}
				return t.ByteOrder().Uint64(w[:]), nil
			}
		}
		b, pc = b[inst.Len:], next
	}
	return 0, fmt.Errorf("no rip-relative load of the list's address at %#x", fn)
}

// Finding _U_dyn_info_list in PA-RISC code: libunwind's
// _U_dyn_info_list_addr is, as gcc compiles it,
//
//	addil L%off,%r19,%r1   ; 32-bit PIC: r19 is the linkage table pointer
//	bv %r0(%rp)
//	ldw R%off(%r1),%ret0   ; the list's address from its linkage table slot
//
// or, in PA 2.0W code, "addil L%off,%dp,%r1; bve (%rp); ldd R%off(%r1),
// %ret0" with dp the module's global pointer; a non-PIC or hidden
// reference computes the address itself with ldo. The few instructions up
// to the return's delay slot are evaluated with r19 and dp known.

// hppaListAddrOf finds the linkage table pointer or global pointer of the
// function's module, then evaluates the code. In PA 2.0W the exported
// symbol is the function's descriptor in .opd (code address at +16, gp
// at +24, read from the core: the loader relocated them).
func hppaListAddrOf(t *target, m *module, fn uint64) (uint64, error) {
	return hppaListAddrIn(m.obj.ELF(), m.bias, t.ReadMem, t.ByteOrder(), fn)
}

// hppaListAddrIn is hppaListAddrOf for object f loaded at bias, its
// memory read through read.
func hppaListAddrIn(f *elf.File, bias uint64, read func(addr uint64, p []byte) error, order binary.ByteOrder, fn uint64) (uint64, error) {
	wide := f.Class == elf.ELFCLASS64
	code, gp := fn, uint64(0)
	if opd := f.Section(".opd"); wide && opd != nil && fn-bias >= opd.Addr && fn-bias < opd.Addr+opd.Size {
		var d [16]byte
		if err := read(fn+16, d[:]); err != nil {
			return 0, fmt.Errorf("function descriptor at %#x: %w", fn, err)
		}
		code, gp = order.Uint64(d[:]), order.Uint64(d[8:])
	} else if v, err := f.DynValue(elf.DT_PLTGOT); err == nil && len(v) > 0 {
		gp = v[0] + bias
	}
	return hppaListAddr(read, order, wide, code, gp)
}

var errHPPAListCode = errors.New("not the code of _U_dyn_info_list_addr")

// hppaListAddr evaluates the instructions at code up to the return's
// delay slot, with r19 and dp (r27) holding gp, and returns ret0 (r28).
func hppaListAddr(read func(addr uint64, p []byte) error, order binary.ByteOrder, wide bool, code, gp uint64) (uint64, error) {
	var regs [32]uint64
	var known [32]bool
	regs[19], regs[27], known[19], known[27] = gp, gp, gp != 0, gp != 0
	mask := ^uint64(0)
	if !wide {
		mask = 0xffffffff
	}
	branched := false
	for i := 0; i < 8; i++ {
		pc := code + 4*uint64(i)
		var b [8]byte
		if err := read(pc, b[:4]); err != nil {
			return 0, fmt.Errorf("at %#x: %w", pc, err)
		}
		w := order.Uint32(b[:4])
		base, t := int(w>>21&31), int(w>>16&31)
		switch w >> 26 {
		case 0x0a: // addil L%x,base,%r1
			if !known[base] {
				return 0, fmt.Errorf("at %#x: addil from r%d: %w", pc, base, errHPPAListCode)
			}
			regs[1], known[1] = (regs[base]+uint64(hppaIm21(w)))&mask, true
		case 0x0d: // ldo d(base),t
			if !known[base] {
				return 0, fmt.Errorf("at %#x: ldo from r%d: %w", pc, base, errHPPAListCode)
			}
			regs[t], known[t] = (regs[base]+uint64(hppaIm14(w)))&mask, true
		case 0x12, 0x14: // ldw d(base),t; ldd d(base),t
			if !known[base] {
				return 0, fmt.Errorf("at %#x: load from r%d: %w", pc, base, errHPPAListCode)
			}
			n, disp := 4, hppaIm14(w)
			if w>>26 == 0x14 {
				if w&2 != 0 {
					return 0, fmt.Errorf("at %#x: ldd with base modification: %w", pc, errHPPAListCode)
				}
				n, disp = 8, hppaIm16a(w)
			}
			addr := (regs[base] + uint64(disp)) & mask
			if err := read(addr, b[:n]); err != nil {
				return 0, fmt.Errorf("linkage table slot %#x: %w", addr, err)
			}
			v := uint64(order.Uint32(b[:4]))
			if n == 8 {
				v = order.Uint64(b[:8])
			}
			regs[t], known[t] = v, true
		case 0x3a: // bv / bve: the return; its delay slot follows
			branched = true
			continue
		default:
			return 0, fmt.Errorf("at %#x: instruction %#08x: %w", pc, w, errHPPAListCode)
		}
		if branched {
			break
		}
	}
	if !branched || !known[28] {
		return 0, fmt.Errorf("at %#x: no return of the list's address: %w", code, errHPPAListCode)
	}
	return regs[28], nil
}

// hppaIm14 is the 14-bit displacement, sign in the low bit.
func hppaIm14(w uint32) int64 {
	v := int64(w&0x3fff) >> 1
	if w&1 != 0 {
		v -= 1 << 13
	}
	return v
}

// hppaIm16a is ldd/std's doubleword displacement (assemble_16a).
func hppaIm16a(w uint32) int64 {
	v := int64(w>>4&0x3ff) << 3
	if w&1 != 0 {
		v -= 1 << 13
	}
	return v
}

// hppaIm21 is addil/ldil's left immediate, already shifted left by 11.
func hppaIm21(w uint32) int64 {
	x := w & 0x1fffff
	v := (x&1)<<20 | (x>>1&0x7ff)<<9 | (x>>14&3)<<7 | (x>>16&0x1f)<<2 | (x >> 12 & 3)
	r := int64(v) << 11
	if x&1 != 0 {
		r -= 1 << 32
	}
	return r
}

package pa64

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

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

// DynListAddr is unwind.Arch's: the address _U_dyn_info_list_addr
// (fn, the symbol's run-time value in f loaded at bias) returns.
func (Arch) DynListAddr(as unwind.AddrSpace, f *elf.File, bias, fn uint64) (uint64, error) {
	return ListAddrIn(f, bias, as.ReadMem, as.ByteOrder(), fn)
}

// ListAddrIn finds the linkage table pointer or global pointer of the
// function's object f (loaded at bias, its memory read through read) and
// evaluates the code. In PA 2.0W the exported symbol is the function's
// descriptor in .opd (code address at +16, gp at +24, read from the
// target: the loader relocated them).
func ListAddrIn(f *elf.File, bias uint64, read func(addr uint64, p []byte) error, order binary.ByteOrder, fn uint64) (uint64, error) {
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
	return listAddr(read, order, wide, code, gp)
}

// ErrNotListAddrCode: the code is not a form of _U_dyn_info_list_addr
// this evaluator knows.
var ErrNotListAddrCode = errors.New("not the code of _U_dyn_info_list_addr")

// listAddr evaluates the instructions at code up to the return's
// delay slot, with r19 and dp (r27) holding gp, and returns ret0 (r28).
func listAddr(read func(addr uint64, p []byte) error, order binary.ByteOrder, wide bool, code, gp uint64) (uint64, error) {
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
				return 0, fmt.Errorf("at %#x: addil from r%d: %w", pc, base, ErrNotListAddrCode)
			}
			regs[1], known[1] = (regs[base]+uint64(im21(w)))&mask, true
		case 0x0d: // ldo d(base),t
			if !known[base] {
				return 0, fmt.Errorf("at %#x: ldo from r%d: %w", pc, base, ErrNotListAddrCode)
			}
			regs[t], known[t] = (regs[base]+uint64(im14(w)))&mask, true
		case 0x12, 0x14: // ldw d(base),t; ldd d(base),t
			if !known[base] {
				return 0, fmt.Errorf("at %#x: load from r%d: %w", pc, base, ErrNotListAddrCode)
			}
			n, disp := 4, im14(w)
			if w>>26 == 0x14 {
				if w&2 != 0 {
					return 0, fmt.Errorf("at %#x: ldd with base modification: %w", pc, ErrNotListAddrCode)
				}
				n, disp = 8, stdDisp(w)
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
			return 0, fmt.Errorf("at %#x: instruction %#08x: %w", pc, w, ErrNotListAddrCode)
		}
		if branched {
			break
		}
	}
	if !branched || !known[28] {
		return 0, fmt.Errorf("at %#x: no return of the list's address: %w", code, ErrNotListAddrCode)
	}
	return regs[28], nil
}

package analyze

import (
	"bytes"
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/elfx"
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
			a, err := listAddrFromCode(t, m.obj.ELF().Machine, v+m.bias)
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

// listAddrFromCode finds what _U_dyn_info_list_addr at fn returns by
// decoding its first instructions: "lea list(%rip),%rax; ret" in a
// position-independent build, or a load of the list's address from the
// GOT ("mov got(%rip),%rax"). Only x86-64 code is decoded.
func listAddrFromCode(t *target, machine elf.Machine, fn uint64) (uint64, error) {
	if machine != elf.EM_X86_64 {
		return 0, fmt.Errorf("decoding %v code is not supported", machine)
	}
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

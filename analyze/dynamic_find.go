package analyze

import (
	"fmt"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/unwind"
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
		obj := m.obj()
		if obj == nil {
			continue
		}
		syms := lookupJITSymbols(obj)
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
// run-time value in module m) returns, by having the target's arch
// evaluate its first instructions (unwind.Arch.DynListAddr).
func listAddrFromCode(t *target, m *module, fn uint64) (uint64, error) {
	arch, err := unwind.LookupArch(t.core.Arch)
	if err != nil {
		return 0, err
	}
	return arch.DynListAddr(t, m.obj().ELF(), m.bias, fn)
}

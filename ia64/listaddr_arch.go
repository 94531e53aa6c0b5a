package ia64

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// listAddrBytes is how much of the function is read: the decoder looks
// at no more than eight bundles.
const listAddrBytes = 8 * 16

// DynListAddr is unwind.DynListArch. It reads _U_dyn_info_list_addr's
// bundles from the target and evaluates them with gp the module's global
// pointer: its DT_PLTGOT (what libunwind and the loader use as gp), or
// the __gp symbol in an object without a dynamic section (a static
// executable). On IA-64 a function symbol is its code address, not a
// descriptor.
func (a Arch) DynListAddr(as unwind.AddrSpace, f *elf.File, bias, fn uint64) (uint64, error) {
	gp, err := globalPointer(f)
	if err != nil {
		return 0, err
	}
	gp += bias
	// Bundle by bundle: the function may end its mapping.
	code := make([]byte, 0, listAddrBytes)
	var b [16]byte
	for len(code) < listAddrBytes {
		if err := as.ReadMem(fn+uint64(len(code)), b[:]); err != nil {
			if len(code) == 0 {
				return 0, fmt.Errorf("code at %#x: %w", fn, err)
			}
			break
		}
		code = append(code, b[:]...)
	}
	return ListAddrFromCode(code, fn, gp, as.ReadMem, as.ByteOrder())
}

// globalPointer is an object's link-time gp.
func globalPointer(f *elf.File) (uint64, error) {
	if v, err := f.DynValue(elf.DT_PLTGOT); err == nil && len(v) > 0 {
		return v[0], nil
	}
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Name == "__gp" && s.Section != elf.SHN_UNDEF {
			return s.Value, nil
		}
	}
	return 0, errors.New("no global pointer (neither DT_PLTGOT nor __gp)")
}

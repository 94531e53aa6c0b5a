package ppc64

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// DynListAddr is unwind.DynListArch. The code of libunwind's
// _U_dyn_info_list_addr on Power (TOC-relative addis/addi or a TOC load,
// after a global entry point computing r2 from r12, or an ELFv1 function
// descriptor) is not decoded: the error says so.
func (Arch) DynListAddr(_ unwind.AddrSpace, _ *elf.File, _, fn uint64) (uint64, error) {
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: its ppc64 code is not decoded: %w", fn, unwind.ErrNoInfo)
}

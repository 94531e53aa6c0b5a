package riscv64

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// DynListAddr is unwind.DynListArch. libunwind's dynamic unwind info
// (_U_dyn_info_list) is modelled for x86-64 and IA-64 only, and nothing
// registers it on riscv64, so the code of _U_dyn_info_list_addr is not
// decoded here: the caller gets an error wrapping unwind.ErrNoInfo.
func (Arch) DynListAddr(_ unwind.AddrSpace, _ *elf.File, _, fn uint64) (uint64, error) {
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: its riscv64 code is not decoded: %w", fn, unwind.ErrNoInfo)
}

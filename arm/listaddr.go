package arm

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// DynListAddr is not decoded on arm: libunwind's _U_dyn_info_list_addr
// loads the list's address PC-relatively from a literal pool, in ARM or
// Thumb code, and libunwind's dynamic unwind info is not modelled for arm
// (rule.go), so the address would have no use.
func (Arch) DynListAddr(_ unwind.AddrSpace, _ *elf.File, _, fn uint64) (uint64, error) {
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: arm code is not decoded: %w", fn, unwind.ErrNoInfo)
}

package s390x

import (
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// DynListAddr is unwind.DynListArch: what libunwind's exported
// _U_dyn_info_list_addr (at fn) returns, decoded from its code. On s390x
// gcc compiles it to "larl %r2, list; br %r14" (the list in the same
// object) or "lgrl %r2, got_slot; br %r14" (its address from the GOT,
// -fPIC). Both are RIL instructions whose 32-bit immediate counts
// halfwords from the instruction.
func (Arch) DynListAddr(as unwind.AddrSpace, _ *elf.File, _, fn uint64) (uint64, error) {
	var b [6]byte
	if err := as.ReadMem(fn, b[:]); err != nil {
		return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: %v: %w", fn, err, unwind.ErrNoInfo)
	}
	target := fn + uint64(int64(int32(uint32(b[2])<<24|uint32(b[3])<<16|uint32(b[4])<<8|uint32(b[5])))*2)
	switch {
	case b[0] == 0xc0 && b[1] == 0x20: // larl %r2
		return target, nil
	case b[0] == 0xc4 && b[1] == 0x28: // lgrl %r2
		v, err := readWord(as, target)
		if err != nil {
			return 0, fmt.Errorf("GOT slot %#x: %w", target, err)
		}
		return v, nil
	}
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: instruction % x is not larl or lgrl of r2: %w", fn, b, unwind.ErrNoInfo)
}

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
//
// 31-bit code loads the GOT slot's word with lrl (RIL, c4.d) instead.
func (a Arch) DynListAddr(as unwind.AddrSpace, _ *elf.File, _, fn uint64) (uint64, error) {
	l := a.layout()
	var b [6]byte
	if err := as.ReadMem(fn, b[:]); err != nil {
		return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: %v: %w", fn, err, unwind.ErrNoInfo)
	}
	target := fn + uint64(int64(int32(uint32(b[2])<<24|uint32(b[3])<<16|uint32(b[4])<<8|uint32(b[5])))*2)
	switch {
	case b[0] == 0xc0 && b[1] == 0x20: // larl %r2
		return target, nil
	case b[0] == 0xc4 && b[1] == 0x28 && l.word == 8, // lgrl %r2
		b[0] == 0xc4 && b[1] == 0x2d && l.word == 4: // lrl %r2
		v, err := l.readWord(as, target)
		if err != nil {
			return 0, fmt.Errorf("GOT slot %#x: %w", target, err)
		}
		return v, nil
	}
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: instruction % x is not larl, lgrl or lrl of r2: %w", fn, b, unwind.ErrNoInfo)
}

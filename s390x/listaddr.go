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
// halfwords from the instruction. 31-bit code (-m31 -fPIC) has no lgrl:
// "larl %r1, got_slot; l %r2, 0(%r1)".
func (a Arch) DynListAddr(as unwind.AddrSpace, _ *elf.File, _, fn uint64) (uint64, error) {
	l := a.layout()
	var b [10]byte
	if err := as.ReadMem(fn, b[:6]); err != nil {
		return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: %v: %w", fn, err, unwind.ErrNoInfo)
	}
	target := fn + uint64(int64(int32(uint32(b[2])<<24|uint32(b[3])<<16|uint32(b[4])<<8|uint32(b[5])))*2)
	gotSlot := false
	switch {
	case b[0] == 0xc0 && b[1] == 0x20: // larl %r2
		return target, nil
	case b[0] == 0xc4 && b[1] == 0x28 && l.word == 8: // lgrl %r2
		gotSlot = true
	case b[0] == 0xc0 && b[1] == 0x10 && l.word == 4: // larl %r1
		// then l %r2,0(%r1): 58 20 10 00
		gotSlot = as.ReadMem(fn+6, b[6:]) == nil && b[6] == 0x58 && b[7] == 0x20 && b[8] == 0x10 && b[9] == 0x00
	}
	if !gotSlot {
		return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: code % x is not larl or lgrl of r2, nor larl of r1 and l of r2: %w", fn, b, unwind.ErrNoInfo)
	}
	v, err := l.readWord(as, target)
	if err != nil {
		return 0, fmt.Errorf("GOT slot %#x: %w", target, err)
	}
	return v, nil
}

package x86_64

import (
	"bytes"
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/arch/x86/x86asm"
)

// DynListAddr is unwind.Arch's: what libunwind's exported
// _U_dyn_info_list_addr (at fn) returns, decoded from its code: "lea
// list(%rip),%rax; ret" (a position-independent build) or a load of the
// list's address from the GOT ("mov got(%rip),%rax").
func (Arch) DynListAddr(as unwind.AddrSpace, _ *elf.File, _, fn uint64) (uint64, error) {
	var code [32]byte
	if err := as.ReadMem(fn, code[:]); err != nil {
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
				if err := as.ReadMem(ea, w[:]); err != nil {
					return 0, fmt.Errorf("GOT slot %#x: %w", ea, err)
				}
				return as.ByteOrder().Uint64(w[:]), nil
			}
		}
		b, pc = b[inst.Len:], next
	}
	return 0, fmt.Errorf("no rip-relative load of the list's address at %#x", fn)
}

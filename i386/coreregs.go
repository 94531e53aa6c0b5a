package i386

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// userRegsSize is sizeof(struct user_regs_struct) of a 32-bit process:
// 17 four-byte slots.
const userRegsSize = 17 * 4

// gregSlots maps struct user_regs_struct (asm/user_32.h: bx cx dx si di
// bp ax ds es fs gs orig_ax ip cs flags sp ss), the elf_gregset_t of an
// i386 core's NT_PRSTATUS, to DWARF numbers. The kernel writes the same
// layout for a 32-bit process on a 64-bit kernel (compat
// user_regs_struct32).
var gregSlots = [...]struct{ slot, reg int }{
	{0, EBX}, {1, ECX}, {2, EDX}, {3, ESI}, {4, EDI}, {5, EBP}, {6, EAX},
	{12, EIP}, {15, ESP},
}

// FrameFromThread builds frame 0 from a thread's NT_PRSTATUS registers.
func (Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	if th.Order == nil {
		return nil, fmt.Errorf("i386 register set: no byte order")
	}
	if len(th.GRegs) < userRegsSize {
		return nil, fmt.Errorf("i386 register set: %d bytes, want %d", len(th.GRegs), userRegsSize)
	}
	f := unwind.NewFrame(NumRegs)
	for _, s := range gregSlots {
		f.Set(s.reg, uint64(th.Order.Uint32(th.GRegs[s.slot*4:])), unwind.SaveLoc{Kind: unwind.LocSame})
	}
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

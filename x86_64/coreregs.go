package x86_64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// userRegsSize is sizeof(struct user_regs_struct): 27 eight-byte slots.
const userRegsSize = 27 * 8

// gregSlots maps struct user_regs_struct (asm/user_64.h: r15 r14 r13 r12
// rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss
// fs_base gs_base ds es fs gs), the elf_gregset_t of NT_PRSTATUS, to
// DWARF numbers.
var gregSlots = [...]struct{ slot, reg int }{
	{0, R15}, {1, R14}, {2, R13}, {3, R12}, {4, RBP}, {5, RBX}, {6, R11}, {7, R10},
	{8, R9}, {9, R8}, {10, RAX}, {11, RCX}, {12, RDX}, {13, RSI}, {14, RDI},
	{16, RIP}, {19, RSP},
}

// FrameFromThread builds frame 0 from a thread's NT_PRSTATUS registers.
func (Arch) FrameFromThread(th *unwind.ThreadState) (*unwind.Frame, error) {
	gregs, order := th.GRegs, th.Order
	if len(gregs) < userRegsSize {
		return nil, fmt.Errorf("x86_64 register set: %d bytes, want %d", len(gregs), userRegsSize)
	}
	f := unwind.NewFrame(NumRegs)
	for _, s := range gregSlots {
		f.Set(s.reg, order.Uint64(gregs[s.slot*8:]), unwind.SaveLoc{Kind: unwind.LocSame})
	}
	f.Trust = unwind.TrustContext
	f.ExactPC = true
	return f, nil
}

// fsBaseSlot is fs_base's slot in struct user_regs_struct.
const fsBaseSlot = 21

// DTVAt: the DTV pointer is the TCB's second word (tcbhead_t).
func (Arch) DTVAt() int64 { return 8 }

// ThreadPointer is fs_base: the TCB that x86-64 TLS is addressed from.
func (Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	if len(th.GRegs) < userRegsSize {
		return 0, false
	}
	return th.Order.Uint64(th.GRegs[fsBaseSlot*8:]), true
}

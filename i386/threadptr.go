package i386

import "github.com/coreunwind/coreunwind/unwind"

var _ unwind.ThreadPointerArch = Arch{}

// ntI386TLS is NT_386_TLS: the thread's TLS descriptors in the GDT, an
// array of struct user_desc (asm/ldt.h: entry_number, base_addr, limit,
// flags; 4 bytes each), the kernel's GDT_ENTRY_TLS_ENTRIES of them.
const ntI386TLS = 0x200

// gsSlot is gs's slot in struct user_regs_struct.
const gsSlot = 10

// userDescSize is sizeof(struct user_desc).
const userDescSize = 16

// ThreadPointer is the base of the segment %gs selects, where i386 glibc
// keeps the TCB: the NT_386_TLS descriptor whose entry_number is the
// selector's index (gs >> 3). A selector into the LDT (bit 2) or the
// null selector selects none of them.
func (Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	if th.Order == nil || len(th.GRegs) < userRegsSize {
		return 0, false
	}
	gs := th.Order.Uint32(th.GRegs[gsSlot*4:]) & 0xffff
	if gs>>3 == 0 || gs&4 != 0 {
		return 0, false
	}
	descs := th.Notes[ntI386TLS]
	for off := 0; off+userDescSize <= len(descs); off += userDescSize {
		if th.Order.Uint32(descs[off:]) == gs>>3 {
			return uint64(th.Order.Uint32(descs[off+4:])), true
		}
	}
	return 0, false
}

// DTVAt: the DTV pointer is the TCB's second word (glibc's i386
// tcbhead_t {tcb, dtv, self, ...}).
func (Arch) DTVAt() int64 { return 4 }

var _ unwind.GOTRegArch = Arch{}

// GOTReg: i386 PIC code holds _GLOBAL_OFFSET_TABLE_ in %ebx.
func (Arch) GOTReg() int { return EBX }

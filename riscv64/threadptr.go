package riscv64

import "github.com/coreunwind/coreunwind/unwind"

var _ unwind.ThreadPointerArch = Arch{}

// tpReg is x4, the thread pointer.
const tpReg = 4

// ThreadPointer is tp (user_regs_struct's slot 4: pc, then x1..x31).
func (Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	if len(th.GRegs) < gregsSize {
		return 0, false
	}
	return th.Order.Uint64(th.GRegs[tpReg*8:]), true
}

// DTVAt: tp points just past glibc's tcbhead_t {dtv, private}.
func (Arch) DTVAt() int64 { return -16 }

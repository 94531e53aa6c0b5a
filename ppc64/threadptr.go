package ppc64

import "github.com/coreunwind/coreunwind/unwind"

var _ unwind.ThreadPointerArch = Arch{}

// ThreadPointer is r13, which the 64-bit ELF ABIs reserve for it, and r2
// in the 32-bit SysV ABI (pt_regs' gpr[13] or gpr[2] in NT_PRSTATUS).
func (a Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	l := a.layout()
	if len(th.GRegs) < l.gregsSize() {
		return 0, false
	}
	r := R13
	if l.ppc32 {
		r = TOC // r2: the thread pointer in the 32-bit ABI
	}
	return l.wordAt(th.Order, th.GRegs[r*int(l.word):]), true
}

// DTVAt: the thread pointer points 0x7000 past the end of glibc's
// tcbhead_t, whose last word is the DTV pointer (in both word sizes).
func (a Arch) DTVAt() int64 { return -0x7000 - int64(a.layout().word) }

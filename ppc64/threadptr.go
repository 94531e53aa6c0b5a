package ppc64

import "github.com/coreunwind/coreunwind/unwind"

var _ unwind.ThreadPointerArch = Arch{}

// ThreadPointer is r13, which the 64-bit ELF ABIs reserve for it
// (pt_regs' gpr[13] in NT_PRSTATUS).
func (Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	if len(th.GRegs) < gregsSize {
		return 0, false
	}
	return th.Order.Uint64(th.GRegs[R13*8:]), true
}

// DTVAt: r13 points 0x7000 past the end of glibc's tcbhead_t, whose last
// word is the DTV pointer.
func (Arch) DTVAt() int64 { return -0x7000 - 8 }

package sparc64

import "github.com/coreunwind/coreunwind/unwind"

var _ unwind.ThreadPointerArch = Arch{}

// ThreadPointer is %g7, which glibc points at the thread's tcbhead_t.
func (Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	if len(th.GRegs) < gregsSize {
		return 0, false
	}
	return th.Order.Uint64(th.GRegs[G7*8:]), true
}

// DTVAt: glibc's sparc tcbhead_t is {tcb, dtv, ...}: the DTV pointer is
// its second word.
func (Arch) DTVAt() int64 { return 8 }

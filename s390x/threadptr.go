package s390x

import "github.com/coreunwind/coreunwind/unwind"

var _ unwind.ThreadPointerArch = Arch{}

// ThreadPointer is access registers a0:a1, the high and low halves of
// the thread pointer (what ear %rN,%a0/%a1 read in TLS accesses), from
// NT_PRSTATUS's acrs, which qemu-user's cores have too.
func (Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	if len(th.GRegs) < gregsSize {
		return 0, false
	}
	hi, lo := th.Order.Uint32(th.GRegs[acrsOff:]), th.Order.Uint32(th.GRegs[acrsOff+4:])
	return uint64(hi)<<32 | uint64(lo), true
}

// DTVAt: glibc's s390 tcbhead_t is {tcb, dtv, self, ...} at the thread
// pointer.
func (Arch) DTVAt() int64 { return 8 }

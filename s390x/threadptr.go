package s390x

import "github.com/coreunwind/coreunwind/unwind"

var _ unwind.ThreadPointerArch = Arch{}

// ThreadPointer is access registers a0:a1, the high and low halves of
// the thread pointer (what ear %rN,%a0/%a1 read in TLS accesses), from
// NT_PRSTATUS's acrs, which qemu-user's cores have too; 31-bit code
// keeps it in a0 alone.
func (a Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	l := a.layout()
	off := l.acrsOff()
	if len(th.GRegs) < off+16*4 {
		return 0, false
	}
	hi, lo := th.Order.Uint32(th.GRegs[off:]), th.Order.Uint32(th.GRegs[off+4:])
	if l.word == 4 {
		return uint64(hi), true
	}
	return uint64(hi)<<32 | uint64(lo), true
}

// DTVAt: glibc's s390 tcbhead_t is {tcb, dtv, self, ...} at the thread
// pointer.
func (a Arch) DTVAt() int64 { return int64(a.layout().word) }

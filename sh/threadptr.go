package sh

import "github.com/coreunwind/coreunwind/unwind"

var _ unwind.ThreadPointerArch = Arch{}

// ThreadPointer is gbr, which glibc points at the thread's tcbhead_t.
func (Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	if len(th.GRegs) < gregsSize {
		return 0, false
	}
	return uint64(th.Order.Uint32(th.GRegs[gbrSlot*4:])), true
}

// DTVAt: SuperH's tcbhead_t is {dtv, private} at gbr (TLS_DTV_AT_TP).
func (Arch) DTVAt() int64 { return 0 }

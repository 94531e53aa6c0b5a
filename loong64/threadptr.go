package loong64

import "github.com/coreunwind/coreunwind/unwind"

var _ unwind.ThreadPointerArch = Arch{}

// ThreadPointer is tp (r2).
func (Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	if len(th.GRegs) < gregsSize {
		return 0, false
	}
	return th.Order.Uint64(th.GRegs[TP*8:]), true
}

// DTVAt: as on riscv64, glibc's tp points just past tcbhead_t {dtv,
// private} (TLS_DTV_AT_TP).
func (Arch) DTVAt() int64 { return -16 }

package aarch64

import "github.com/coreunwind/coreunwind/unwind"

var _ unwind.ThreadPointerArch = Arch{}

// ntARMTLS is NT_ARM_TLS: tpidr_el0 (then tpidr2_el0 on SME kernels).
// The kernel writes it in every thread's notes; qemu-user's cores do
// not have it, so there the thread pointer is unknown.
const ntARMTLS = 0x401

// ThreadPointer is tpidr_el0 from NT_ARM_TLS.
func (Arch) ThreadPointer(th *unwind.ThreadState) (uint64, bool) {
	n := th.Notes[ntARMTLS]
	if len(n) < 8 {
		return 0, false
	}
	return th.Order.Uint64(n), true
}

// DTVAt: tpidr_el0 points at glibc's tcbhead_t {dtv, private}.
func (Arch) DTVAt() int64 { return 0 }

package unwind

// ThreadPointerArch is implemented by arches that can find a thread's TLS
// pointer in what the core saved (x86-64: fs_base; aarch64 and arm: the
// TPIDR of NT_ARM_TLS; ppc64: r13; s390x: access registers a0:a1;
// riscv64: tp). Crash analysis reads thread-local state with it
// (libstdc++'s exception globals). Optional, as TableArch is.
type ThreadPointerArch interface {
	ThreadPointer(th *ThreadState) (uint64, bool)
	// DTVAt is where glibc keeps the thread's DTV pointer, relative to
	// the thread pointer (its tls.h: x86-64 and s390x tp+8, the TCB's
	// second word; aarch64 and arm tp+0; riscv64 tp-16; ppc64
	// tp-0x7008, the last word of the TCB below tp-0x7000).
	DTVAt() int64
}

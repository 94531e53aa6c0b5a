package unwind

// ThreadPointerArch is implemented by arches that can find a thread's TLS
// pointer in what the core saved (x86-64: fs_base; aarch64: tpidr_el0 of
// NT_ARM_TLS; i386: the GDT entry of NT_386_TLS that gs selects). Crash
// analysis reads thread-local state with it (libstdc++'s exception
// globals). Optional, as TableArch is.
type ThreadPointerArch interface {
	ThreadPointer(th *ThreadState) (uint64, bool)
}

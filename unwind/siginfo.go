package unwind

// SiginfoArch is implemented by arches that know where the kernel saved
// the siginfo_t of the signal a handler was called for: in the signal
// frame, beside the interrupted context. A handler that re-raises its
// signal (Python's faulthandler, the JVM, Breakpad) kills the process with
// a signal of its own; the fault it caught is only there.
type SiginfoArch interface {
	// SiginfoAddr returns the address of the siginfo_t in signal frame f
	// (a frame the cursor reports as a signal frame, with its registers
	// as the handler returned into the trampoline); ok false when the
	// frame holds none (i386's old-style sigframe) or a register it
	// needs is unknown.
	SiginfoAddr(as AddrSpace, cache *Cache, f *Frame) (addr uint64, ok bool)
}

// TrapContextArch is implemented by arches whose signal context records
// the hardware exception behind a signal (x86's trapno, error code and
// cr2). The kernel writes the context for every handler, the siginfo
// only for one installed with SA_SIGINFO (faulthandler's is not).
type TrapContextArch interface {
	// SavedTrap returns the fault signal signal frame f's context
	// records, as the kernel would have reported it (Linux signal number
	// and si_code, si_addr); ok false when the context records none it
	// maps to a fault.
	SavedTrap(as AddrSpace, cache *Cache, f *Frame) (t SavedTrap, ok bool)
}

// SavedTrap is a fault as a signal context records it.
type SavedTrap struct {
	Signal, Code int
	Addr         uint64
	// AddrOnly: the context records an address only (arm64's
	// fault_address, written for every signal, when no ESR record says
	// which fault it was): Signal is SIGSEGV and Code 0, to be believed
	// only where the interrupted instruction accesses exactly Addr.
	AddrOnly bool
}

// FaultPageArch is implemented by arches whose SIGSEGV si_addr is only
// the page of the access, not its address (s390x: the translation
// exception identifies the page). The faulting instruction's operand,
// when it lies in that page, is the address.
type FaultPageArch interface {
	// FaultPageSize is the granule of si_addr.
	FaultPageSize() uint64
}

package unwind

// FrameKind is what a language runtime says of the function a frame is
// in, beyond what its unwind info says: how its caller was entered, or
// that nothing called it. A Cursor asks Options.Classify once a frame.
type FrameKind uint8

const (
	// FrameNormal: a function called by its caller; nothing special.
	FrameNormal FrameKind = iota
	// FrameInjectedCall: a function a signal handler made the
	// interrupted code "call" by pushing the faulting PC as the return
	// address (Go's runtime.sigpanic). The caller's PC is then the
	// faulting instruction itself, exact like a signal-interrupted
	// frame's, and must be looked up as is, not at PC-1.
	FrameInjectedCall
	// FrameOutermost: the first function of a thread or of a goroutine
	// stack (Go's runtime.goexit, runtime.rt0_go; runtime.clone reached
	// as a caller, where a new thread starts). The walk ends here
	// normally: what lies above it is no frame.
	FrameOutermost
	// FrameThreadEntry: the function a thread starts in, which may still
	// have a caller worth showing (Go's runtime.mstart, called by
	// runtime.clone on a new thread, by runtime.rt0_go on the first; a
	// thread executing runtime.clone, the parent in the system call or
	// the child just born). A step from it that fails, or finds a
	// caller whose pc is not code (where the address space can tell),
	// ends the walk normally.
	FrameThreadEntry
	// FrameSignalHandler: the function the kernel entered for a
	// signal, whose unwind info hides its return into the signal
	// trampoline (Go's runtime.sigtramp: the linker marks a TOPFRAME
	// function's link register undefined, and ppc64's saves it outside
	// the frame its CFI describes). Its caller is the code the signal
	// interrupted, read from the signal frame the kernel built at the
	// handler's entry stack pointer, its CFA (SignalFrameArch).
	FrameSignalHandler
)

var frameKindNames = [...]string{"normal", "injected_call", "outermost", "thread_entry", "signal_handler"}

func (k FrameKind) String() string {
	if int(k) < len(frameKindNames) {
		return frameKindNames[k]
	}
	return "FrameKind(?)"
}

// Classifier says what kind of function a frame is in. lookupPC is the
// frame's LookupPC (PC-1 for a return address); exact tells whether the
// frame's PC is exact (frame 0, a frame a signal interrupted): a
// runtime's thread-start function reached as a return address is the
// outermost frame, while a thread that is executing it is not.
type Classifier func(lookupPC uint64, exact bool) FrameKind

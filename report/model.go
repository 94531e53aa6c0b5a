package report

// Schema is the JSON schema string of a Report.
const Schema = "coreunwind.report/v1"

// Hex is an address or offset; JSON writes it as a "0x..." string.
type Hex uint64

// Report is everything coreunwind found in one core. Its JSON form is the
// schema contract: field names, types and meanings do not change without
// bumping Schema.
type Report struct {
	Schema  string   `json:"schema"`
	Tool    Tool     `json:"tool"`
	Core    Core     `json:"core"`
	Crash   *Crash   `json:"crash"`
	Modules []Module `json:"modules"`
	// Mappings is the process's memory map, as gdb's info proc mappings
	// prints it, with permissions and what the core holds of each.
	Mappings []Mapping `json:"mappings"`
	Threads  []Thread  `json:"threads"`
	// Goroutines are a Go program's goroutines, the crashed one first
	// (alone in a report of the crashed thread only); nil for a program
	// that is not Go (or whose goroutines could not be read: a warning
	// says why).
	Goroutines []Goroutine `json:"goroutines"`
	// Python is the CPython interpreter the process ran, nil for a
	// process without one (or whose interpreter could not be read: a
	// warning says why).
	Python   *Python  `json:"python"`
	Warnings []string `json:"warnings"`
}

// Crash is why the process died, as far as the core proves it: nothing
// here is a guess. nil when the core records no crash.
type Crash struct {
	// Summary says what happened in one sentence a developer can act on
	// ("read of field at offset 0x18 of a NULL pointer (rax = 0x0)").
	Summary string `json:"summary"`
	// Kind names the finding for programs (see report-json.md).
	Kind string `json:"kind"`
	// Details are further facts, one sentence each.
	Details     []string     `json:"details"`
	Instruction *Instruction `json:"instruction"`
	Access      *Access      `json:"access"`
	// AbortMessage is glibc's __abort_msg: a failed assertion's or a
	// fatal library error's text.
	AbortMessage *string `json:"abort_message"`
	// ExceptionType is the C++ type of the exception in flight when
	// std::terminate was called, demangled.
	ExceptionType *string `json:"exception_type"`
	// ExceptionMessage is that exception's what(), when the core proves
	// it: a std::runtime_error or std::logic_error, or a class derived
	// from them that keeps their what().
	ExceptionMessage *string `json:"exception_message"`
	// TerminateMessage is what the C++ runtime's terminate handler
	// printed for that exception, rebuilt from the core in that
	// runtime's words (libstdc++'s two lines, libc++abi's one), when
	// the type and the message are proven.
	TerminateMessage *string `json:"terminate_message"`
	// PanicLocation is a Rust panic's FILE:LINE:COLUMN and PanicMessage
	// its message, each when the core proves it (kind rust_panic).
	PanicLocation *string `json:"panic_location"`
	PanicMessage  *string `json:"panic_message"`
	// PanicThread is the name std gave the panicking thread (what the
	// hook printed between quotes), when the core proves it.
	PanicThread *string `json:"panic_thread"`
	// Recursion is the cycle of functions that overflowed the stack,
	// innermost first; nil unless Kind is stack_overflow and the frames
	// repeat.
	Recursion []string `json:"recursion"`
	// Registers of the crashing frame.
	Registers []Register `json:"registers"`
	// Reraised is set when a signal handler caught the fault this
	// analysis explains and then raised the signal that killed the
	// process (Python's faulthandler, a JVM, Breakpad): the fault is the
	// siginfo and context the kernel saved in the signal frame.
	Reraised *Reraised `json:"reraised"`
	// Sender is the process that sent the signal (kill, tgkill,
	// sigqueue), when it is not the crashed process itself and no
	// fault lies below: kind sent_signal.
	Sender *Sender `json:"sender"`
}

// Reraised says which signal killed the process when it is not the
// fault the analysis explains, and where the fault is among the crashed
// thread's frames.
type Reraised struct {
	// Signal is what killed the process (the core's signal): the one the
	// handler raised.
	Signal Signal `json:"signal"`
	// Fault is the siginfo the kernel saved for the handler.
	Fault Signal `json:"fault"`
	// SignalFrame is the index of the signal frame (gdb's "<signal
	// handler called>"); FaultFrame of the frame the fault interrupted,
	// whose pc is the instruction's and whose registers are the crash's.
	SignalFrame int `json:"signal_frame"`
	FaultFrame  int `json:"fault_frame"`
}

// Sender is the process that sent a signal.
type Sender struct {
	PID int `json:"pid"`
	UID int `json:"uid"`
}

// Instruction is the instruction the crashing thread stopped at.
type Instruction struct {
	Address Hex    `json:"address"`
	Text    string `json:"text"` // as gdb's x/i prints it (AT&T syntax on x86)
	Bytes   string `json:"bytes"`
	// MemoryAddress is the computed address of its memory operand.
	MemoryAddress *Hex `json:"memory_address"`
	// Registers it names or addresses memory with, with their values.
	Registers []Register `json:"registers"`
}

// Access is the memory access that faulted.
type Access struct {
	Kind    string   `json:"kind"` // read | write | read_write | execute
	Address Hex      `json:"address"`
	Mapping *Mapping `json:"mapping"` // the mapping holding Address, null when none does
}

// Register is one register's value in a frame and how the unwinder
// recovered it (the unwind.SaveLoc kind): context (saved by the kernel
// in the core), same (unchanged from the callee), memory (saved on the
// stack at Address), register (copied from another register), value
// (computed, like the stack pointer from the CFA).
type Register struct {
	Name    string `json:"name"`
	Value   Hex    `json:"value"`
	How     string `json:"how"`
	Address *Hex   `json:"address"`
}

// Mapping is one mapping of the process's address space.
type Mapping struct {
	Start Hex    `json:"start"`
	End   Hex    `json:"end"`
	Perms string `json:"perms"` // "r-x": read, write, execute, '-' where denied
	// Offset in Path's file; Path null for anonymous memory (heap,
	// stacks) and the kernel's own ([vdso], [vvar], ...) unnamed by the core.
	Offset Hex     `json:"offset"`
	Path   *string `json:"path"`
	// DumpedSize is how many bytes from Start the core holds.
	DumpedSize Hex `json:"dumped_size"`
}

// Tool names the program that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Core describes the dumped process.
type Core struct {
	Path        string  `json:"path"`
	Format      string  `json:"format"`
	Arch        string  `json:"arch"`
	ByteOrder   string  `json:"byte_order"`
	PointerSize int     `json:"pointer_size"`
	OS          string  `json:"os"`
	PID         *int    `json:"pid"`
	Executable  *string `json:"executable"`
	CommandLine *string `json:"command_line"`
	Signal      *Signal `json:"signal"`
	CrashedTID  *int    `json:"crashed_tid"`
	// Origin is the crash report the core came in (a journal entry, an
	// apport .crash file, an ABRT problem directory); nil for a core
	// file.
	Origin *Origin `json:"origin"`
	// Annotations are what a crash reporter attached to the dump
	// (Crashpad's annotations in a minidump); empty for a core.
	Annotations []Annotation `json:"annotations"`
}

// Annotation is one of a crash reporter's annotations: a key and its
// value, process-wide (Module nil) or of a module, or a module's list
// annotation (Key nil).
type Annotation struct {
	Module *string `json:"module"`
	Key    *string `json:"key"`
	Value  string  `json:"value"`
}

// Signal is the signal that killed (or stopped) the process.
type Signal struct {
	Number   int     `json:"number"`
	Name     string  `json:"name"`
	Code     int     `json:"code"`
	CodeName *string `json:"code_name"`
	Address  *Hex    `json:"address"`

	// SenderPID and SenderUID: who sent a signal sent by a process
	// (kill, tgkill, sigqueue). Text output only; not in the schema.
	SenderPID, SenderUID *int `json:"-"`
}

// Module is a mapped object file.
type Module struct {
	Path       string  `json:"path"`
	BuildID    *string `json:"build_id"`
	Start      Hex     `json:"start"`
	End        Hex     `json:"end"`
	FileOffset Hex     `json:"file_offset"`
	Found      bool    `json:"found"`
	DebugFile  *string `json:"debug_file"`
}

// Thread is one thread's stack.
type Thread struct {
	TID       int     `json:"tid"`
	Name      *string `json:"name"`
	Crashed   bool    `json:"crashed"`
	Frames    []Frame `json:"frames"`
	Truncated bool    `json:"truncated"`
	Error     *string `json:"error"`
	// Python is the thread's Python thread state, nil for a thread
	// without one.
	Python *PythonThread `json:"python"`

	// Err is the error behind Error, for callers that must tell why the
	// walk stopped (errors.Is: unwind.ErrUnavailable, corefile.ErrTruncated).
	// Not part of the JSON schema.
	Err error `json:"-"`
}

// Goroutine is one goroutine of a Go program, as the Go runtime's own
// traceback lists it.
type Goroutine struct {
	ID uint64 `json:"id"`
	// State is what the runtime prints in brackets: the wait reason of
	// a waiting goroutine ("chan receive"), else its status ("running",
	// "runnable", "syscall", ...).
	State string `json:"state"`
	// Crashed: the goroutine running on the crashed thread.
	Crashed bool `json:"crashed"`
	// TID is the thread running it, nil when none is.
	TID    *int    `json:"tid"`
	Frames []Frame `json:"frames"`
	// Error says why its frames stop early (or are missing), nil when
	// they end normally.
	Error *string `json:"error"`
	// WaitMinutes is how long it has waited, in whole minutes, as the
	// runtime prints it ("[chan receive, 3 minutes]"); nil where the
	// runtime recorded no time (see report-json.md).
	WaitMinutes *int64 `json:"wait_minutes"`
	// LockedToThread: it called runtime.LockOSThread; LockedTID is
	// that thread, nil when unknown.
	LockedToThread bool `json:"locked_to_thread"`
	LockedTID      *int `json:"locked_tid"`
	// Labels are its pprof labels (runtime/pprof.Do), nil for none.
	Labels map[string]string `json:"labels"`
	// CreatedBy is the go statement that started it, nil for the main
	// goroutine and the runtime's own first ones.
	CreatedBy *GoCreator `json:"created_by"`
	// Panics are the goroutine's panics, the oldest first as the
	// runtime prints them; nil when it is not panicking.
	Panics []GoPanic `json:"panics"`
}

// Crash kinds of a Go program: the runtime's own account of why it
// died, which says more than the SIGABRT it then raises.
const (
	// KindGoPanic: the crashed goroutine was panicking; the summary is
	// its chain of panics as the runtime prints it.
	KindGoPanic = "go_panic"
	// KindGoFatalError: runtime.throw or runtime.fatal; the summary is
	// "fatal error: MSG".
	KindGoFatalError = "go_fatal_error"
)

// GoCreator is where a goroutine was created, as the runtime's
// traceback prints it under "created by".
type GoCreator struct {
	// Function is the function that ran the go statement.
	Function string `json:"function"`
	// Goroutine ran it; nil where the runtime does not say (Go 1.20).
	Goroutine *uint64 `json:"goroutine"`
	// PC is the return address after the go statement's call.
	PC             Hex     `json:"pc"`
	FunctionOffset *Hex    `json:"function_offset"`
	File           *string `json:"file"`
	Line           *int    `json:"line"`
}

// GoPanic is one panic of a goroutine.
type GoPanic struct {
	// Value is as the runtime prints it after "panic: ".
	Value string `json:"value"`
	// Type is the value's dynamic Go type ("string" once the runtime
	// has turned an error into its message).
	Type       string `json:"type"`
	Recovered  bool   `json:"recovered"`
	Repanicked bool   `json:"repanicked"`
	// Goexit: runtime.Goexit, which the runtime does not print.
	Goexit bool `json:"goexit"`
}

// Frame is one frame, or one inlined call within a frame (Inlined: it
// shares PC with the next frame, the function it was inlined into).
type Frame struct {
	Index int `json:"index"`
	PC    Hex `json:"pc"`
	// ExactPC: PC is the instruction that was executing (frame 0, a
	// frame a signal interrupted), not a return address; consumers look
	// up PC-1 for return addresses (the call, not what follows it).
	ExactPC        bool    `json:"exact_pc"`
	SP             *Hex    `json:"sp"`
	CFA            *Hex    `json:"cfa"`
	Trust          string  `json:"trust"`
	Module         *string `json:"module"`
	ModuleOffset   *Hex    `json:"module_offset"`
	Function       *string `json:"function"`
	FunctionOffset *Hex    `json:"function_offset"`
	File           *string `json:"file"`
	Line           *int    `json:"line"`
	Column         *int    `json:"column"`
	Inlined        bool    `json:"inlined"`
	// Language is the language of the frame's code: LanguagePython for
	// a frame of Python code, "" (JSON: "native") for machine code. A
	// Python frame has no module offset, function offset or registers:
	// its pc, sp, cfa, trust and module are those of the evaluator's
	// native frame that runs it, which it replaces.
	Language Language `json:"language"`

	// Registers the unwinder recovered for this frame; null for inlined
	// frames (they share the registers of the frame they are in).
	Registers []Register `json:"registers"`

	// Signal marks a signal trampoline frame (text output prints it as
	// gdb's "<signal handler called>"). Not part of the JSON schema.
	Signal bool `json:"-"`
	// GoWrapper marks a Go wrapper function's frame (elfx.GoFunc's
	// Wrapper), which a goroutine's text leaves out as the runtime's
	// traceback does (TextOptions.GoWrappers). Not part of the JSON
	// schema: JSON has every frame, as GOTRACEBACK=system prints them.
	GoWrapper bool `json:"-"`
}

// Language is the language of a frame's code.
type Language string

// Languages of frames.
const (
	LanguageNative Language = "native"
	LanguagePython Language = "python"
)

// MarshalJSON writes the zero Language, a native frame's, as "native".
func (l Language) MarshalJSON() ([]byte, error) {
	if l == "" {
		l = LanguageNative
	}
	return []byte(`"` + string(l) + `"`), nil
}

// Python is the CPython interpreter of the process.
type Python struct {
	// Version is the interpreter's version ("3.11.2"; its feature
	// release, "3.9", where only the library's name says it).
	Version string `json:"version"`
	// Layout says where the struct layouts read came from: "DWARF"
	// (the interpreter's debug information), "_Py_DebugOffsets" (3.13+,
	// the table in the core) or "headers" (coreunwind's table generated
	// from CPython's headers).
	Layout string `json:"layout"`
	// Module is the module holding the interpreter: the executable
	// (Debian's python3.11 links libpython in) or libpython3.X.so.
	Module string `json:"module"`
}

// PythonThread is a thread's Python thread state.
type PythonThread struct {
	// ThreadID is the thread's pthread_t, as faulthandler and
	// threading.get_ident() give it.
	ThreadID Hex `json:"thread_id"`
	// HoldsGIL: the thread holds the global interpreter lock.
	HoldsGIL bool `json:"holds_gil"`
	// Exception is the exception the thread is raising or handling,
	// nil for none.
	Exception *PythonException `json:"exception"`
	// Error says why the thread's Python frames stop early (or are not
	// all placed in its native stack), nil when they do not.
	Error *string `json:"error"`
}

// PythonException is an exception a Python thread holds.
type PythonException struct {
	Type string `json:"type"`
	// Message is its str() when that is its single string argument,
	// nil otherwise.
	Message *string `json:"message"`
	// Handled: the thread is handling it (in an except block), not
	// raising it.
	Handled bool `json:"handled"`
}

// TrustTailCall is the trust of a frame rebuilt from the compiler's
// call-site records (DW_TAG_call_site): a function that ended in a tail
// call (a jump) to the frame below it, which left no return address on
// the stack. Its PC is the return address of the jump's call site, in
// the function that jumped.
const TrustTailCall = "tail_call"

// Ptr returns a pointer to v, for the optional fields.
func Ptr[T any](v T) *T { return &v }

package report

// Schema is the JSON schema string of a Report.
const Schema = "coreunwind.report/v1"

// Hex is an address or offset; JSON writes it as a "0x..." string.
type Hex uint64

// Report is everything coreunwind found in one core. Its JSON form is the
// schema contract: field names, types and meanings do not change without
// bumping Schema.
type Report struct {
	Schema   string   `json:"schema"`
	Tool     Tool     `json:"tool"`
	Core     Core     `json:"core"`
	Modules  []Module `json:"modules"`
	Threads  []Thread `json:"threads"`
	Warnings []string `json:"warnings"`
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

	// Err is the error behind Error, for callers that must tell why the
	// walk stopped (errors.Is: unwind.ErrUnavailable, corefile.ErrTruncated).
	// Not part of the JSON schema.
	Err error `json:"-"`
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

	// Signal marks a signal trampoline frame (text output prints it as
	// gdb's "<signal handler called>"). Not part of the JSON schema.
	Signal bool `json:"-"`
}

// Ptr returns a pointer to v, for the optional fields.
func Ptr[T any](v T) *T { return &v }

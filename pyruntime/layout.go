package pyruntime

// Layout is where the members the reader follows sit in CPython's
// structs, as byte offsets, for one version and pointer size. A member
// the version lacks is -1.
//
// This is the reader's side of the contract with the layouts generated
// from CPython's headers (pyver's pyruntime/pylayout); until those land
// the reader knows Debian's 3.11 only (layout311).
type Layout struct {
	// Version is PY_VERSION_HEX's major and minor: 0x030b for 3.11.
	Version uint16

	// _PyRuntimeState
	RuntimeInterpretersHead int64 // interpreters.head
	RuntimeGILLocked        int64 // ceval.gil.locked (3.11: one GIL per runtime)
	RuntimeGILLastHolder    int64 // ceval.gil.last_holder

	// PyInterpreterState
	InterpNext        int64
	InterpThreadsHead int64 // threads.head

	// PyThreadState
	TstateNext         int64
	TstateCFrame       int64 // cframe (3.11); -1 where the frame is TstateCurrentFrame
	TstateCurrentFrame int64 // current_frame (3.13: in the thread state); -1 before
	TstateThreadID     int64 // thread_id: the pthread_t faulthandler prints
	TstateNativeID     int64 // native_thread_id: the kernel's thread id
	TstateCurExcValue  int64 // curexc_value (3.11), current_exception (3.12): being raised
	TstateExcInfo      int64 // exc_info: the _PyErr_StackItem being handled

	// _PyCFrame
	CFrameCurrentFrame int64

	// _PyErr_StackItem
	ErrStackExcValue int64

	// _PyInterpreterFrame
	FrameCode     int64 // f_code (f_executable from 3.13)
	FramePrevious int64
	FrameInstr    int64 // prev_instr (3.11, 3.12), instr_ptr (3.13)
	FrameIsEntry  int64 // is_entry (3.11); -1 where entry frames are shims
	FrameOwner    int64 // owner

	// PyCodeObject
	CodeFirstLine  int64 // co_firstlineno
	CodeFilename   int64
	CodeName       int64
	CodeQualname   int64
	CodeLinetable  int64
	CodeInstrStart int64 // co_code_adaptive: where the bytecode starts
	CodeSize       int64 // the bytes of a code object the reader reads at once

	// PyObject, PyVarObject
	ObjectType    int64 // ob_type
	VarObjectSize int64 // ob_size

	// PyTypeObject
	TypeName int64 // tp_name

	// PyBytesObject
	BytesData int64 // ob_sval

	// PyTupleObject
	TupleItems int64 // ob_item

	// PyBaseExceptionObject
	ExceptionArgs int64

	// PyASCIIObject, PyCompactUnicodeObject
	UnicodeLength      int64
	UnicodeState       int64
	UnicodeASCIIData   int64 // sizeof(PyASCIIObject): a compact ASCII string's characters
	UnicodeCompactData int64 // sizeof(PyCompactUnicodeObject): a compact string's characters
}

// layout311 is CPython 3.11 on LP64 (x86_64), from Debian's python3.11
// DWARF (python3.11-dbg).
var layout311 = Layout{
	Version:                 0x030b,
	RuntimeInterpretersHead: 40,
	RuntimeGILLocked:        352 + 8 + 16,
	RuntimeGILLastHolder:    352 + 8 + 8,
	InterpNext:              0,
	InterpThreadsHead:       16,
	TstateNext:              8,
	TstateCFrame:            56,
	TstateCurrentFrame:      -1,
	TstateThreadID:          152,
	TstateNativeID:          160,
	TstateCurExcValue:       104,
	TstateExcInfo:           120,
	CFrameCurrentFrame:      8,
	ErrStackExcValue:        0,
	FrameCode:               32,
	FramePrevious:           48,
	FrameInstr:              56,
	FrameIsEntry:            68,
	FrameOwner:              69,
	CodeFirstLine:           72,
	CodeFilename:            112,
	CodeName:                120,
	CodeQualname:            128,
	CodeLinetable:           136,
	CodeInstrStart:          184,
	CodeSize:                184,
	ObjectType:              8,
	VarObjectSize:           16,
	TypeName:                24,
	BytesData:               32,
	TupleItems:              24,
	ExceptionArgs:           24,
	UnicodeLength:           16,
	UnicodeState:            32,
	UnicodeASCIIData:        48,
	UnicodeCompactData:      72,
}

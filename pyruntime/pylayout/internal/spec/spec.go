// Package spec is the one list of which CPython struct member fills which
// pylayout.Layout field, in which versions and builds. genlayout compiles
// it into C (offsetof, sizeof, enumerators, bit-field masks) against
// CPython's headers; pylayout.FromDWARF looks the same members up in
// libpython's debug information. Keeping one list keeps the two sources
// measuring the same thing.
package spec

// Kind is what a Member measures.
type Kind uint8

const (
	// OffsetOf is offsetof(CType, Member); Member may be a path through
	// embedded structs and unions ("interpreters.head").
	OffsetOf Kind = iota
	// SizeOf is sizeof(CType).
	SizeOf
	// Enumerator is the value of the enumeration constant Member.
	Enumerator
	// BitMask is the mask of bit field Member ("state.kind", Width bits
	// wide) within the 32-bit little-endian word that starts its
	// containing member ("state").
	BitMask
)

// Flavour limits a Member to builds with or without the GIL.
type Flavour uint8

const (
	AnyBuild         Flavour = iota
	WithGIL                  // not in free-threaded (Py_GIL_DISABLED) builds
	FreeThreadedOnly         // only in free-threaded builds
)

// Member is one measurement: Path, a pylayout.Layout field ("Thread.Next"),
// is Kind of Member in CType (as the headers spell it: "PyThreadState",
// "struct _gil_runtime_state") in Python 3.Since up to, not including,
// 3.Before (0: every later version), in builds of Flavour.
type Member struct {
	Path    string
	Kind    Kind
	CType   string
	Member  string
	Width   int
	Since   int
	Before  int
	Flavour Flavour
}

// In says whether m exists in Python 3.minor, free-threaded or not.
func (m Member) In(minor int, freeThreaded bool) bool {
	if minor < m.Since || m.Before != 0 && minor >= m.Before {
		return false
	}
	switch m.Flavour {
	case WithGIL:
		return !freeThreaded
	case FreeThreadedOnly:
		return freeThreaded
	}
	return true
}

// Members lists every measurement, grouped by the Layout field's struct.
var Members = []Member{
	{Path: "Object.Size", Kind: SizeOf, CType: "PyObject", Since: 6},
	{Path: "Object.Refcnt", CType: "PyObject", Member: "ob_refcnt", Since: 6, Flavour: WithGIL},
	{Path: "Object.Refcnt", CType: "PyObject", Member: "ob_ref_local", Since: 13, Flavour: FreeThreadedOnly},
	{Path: "Object.Type", CType: "PyObject", Member: "ob_type", Since: 6},
	{Path: "Object.VarSize", CType: "PyVarObject", Member: "ob_size", Since: 6},

	{Path: "Runtime.Size", Kind: SizeOf, CType: "_PyRuntimeState", Since: 7},
	{Path: "Runtime.Finalizing", CType: "_PyRuntimeState", Member: "finalizing", Since: 7, Before: 9},
	{Path: "Runtime.Finalizing", CType: "_PyRuntimeState", Member: "_finalizing", Since: 9},
	{Path: "Runtime.InterpretersHead", CType: "_PyRuntimeState", Member: "interpreters.head", Since: 7},
	{Path: "Runtime.InterpretersMain", CType: "_PyRuntimeState", Member: "interpreters.main", Since: 7},
	{Path: "Runtime.TstateCurrent", CType: "_PyRuntimeState", Member: "gilstate.tstate_current", Since: 7, Before: 12},
	{Path: "Runtime.GIL", CType: "_PyRuntimeState", Member: "ceval.gil", Since: 7, Before: 12},

	{Path: "Interp.Size", Kind: SizeOf, CType: "PyInterpreterState", Since: 7},
	{Path: "Interp.Next", CType: "PyInterpreterState", Member: "next", Since: 7},
	{Path: "Interp.ThreadsHead", CType: "PyInterpreterState", Member: "tstate_head", Since: 7, Before: 11},
	{Path: "Interp.ThreadsHead", CType: "PyInterpreterState", Member: "threads.head", Since: 11},
	{Path: "Interp.ID", CType: "PyInterpreterState", Member: "id", Since: 7},
	{Path: "Interp.GIL", CType: "PyInterpreterState", Member: "ceval.gil", Since: 12},

	{Path: "GIL.Locked", CType: "struct _gil_runtime_state", Member: "locked", Since: 7},
	{Path: "GIL.LastHolder", CType: "struct _gil_runtime_state", Member: "last_holder", Since: 7},
	{Path: "GIL.Enabled", CType: "struct _gil_runtime_state", Member: "enabled", Since: 13, Flavour: FreeThreadedOnly},

	{Path: "Thread.Size", Kind: SizeOf, CType: "PyThreadState", Since: 6},
	{Path: "Thread.Prev", CType: "PyThreadState", Member: "prev", Since: 6},
	{Path: "Thread.Next", CType: "PyThreadState", Member: "next", Since: 6},
	{Path: "Thread.Interp", CType: "PyThreadState", Member: "interp", Since: 6},
	{Path: "Thread.Frame", CType: "PyThreadState", Member: "frame", Since: 6, Before: 11},
	{Path: "Thread.CFrame", CType: "PyThreadState", Member: "cframe", Since: 11, Before: 13},
	{Path: "Thread.CurrentFrame", CType: "PyThreadState", Member: "current_frame", Since: 13},
	{Path: "Thread.ThreadID", CType: "PyThreadState", Member: "thread_id", Since: 6},
	{Path: "Thread.NativeThreadID", CType: "PyThreadState", Member: "native_thread_id", Since: 11},
	{Path: "Thread.CurExcType", CType: "PyThreadState", Member: "curexc_type", Since: 6, Before: 12},
	{Path: "Thread.CurExcValue", CType: "PyThreadState", Member: "curexc_value", Since: 6, Before: 12},
	{Path: "Thread.CurExcTraceback", CType: "PyThreadState", Member: "curexc_traceback", Since: 6, Before: 12},
	{Path: "Thread.CurrentException", CType: "PyThreadState", Member: "current_exception", Since: 12},
	{Path: "Thread.ExcInfo", CType: "PyThreadState", Member: "exc_info", Since: 7},
	{Path: "Thread.ExcState", CType: "PyThreadState", Member: "exc_state", Since: 7},
	{Path: "Thread.DatastackChunk", CType: "PyThreadState", Member: "datastack_chunk", Since: 11},

	{Path: "ErrStackItem.ExcType", CType: "_PyErr_StackItem", Member: "exc_type", Since: 7, Before: 11},
	{Path: "ErrStackItem.ExcValue", CType: "_PyErr_StackItem", Member: "exc_value", Since: 7},
	{Path: "ErrStackItem.ExcTraceback", CType: "_PyErr_StackItem", Member: "exc_traceback", Since: 7, Before: 11},
	{Path: "ErrStackItem.PreviousItem", CType: "_PyErr_StackItem", Member: "previous_item", Since: 7},

	{Path: "CFrame.CurrentFrame", CType: "_PyCFrame", Member: "current_frame", Since: 11, Before: 13},
	{Path: "CFrame.Previous", CType: "_PyCFrame", Member: "previous", Since: 11, Before: 13},

	{Path: "Frame.Size", Kind: SizeOf, CType: "_PyInterpreterFrame", Since: 11},
	{Path: "Frame.Code", CType: "_PyInterpreterFrame", Member: "f_code", Since: 11, Before: 13},
	{Path: "Frame.Code", CType: "_PyInterpreterFrame", Member: "f_executable", Since: 13},
	{Path: "Frame.Previous", CType: "_PyInterpreterFrame", Member: "previous", Since: 11},
	{Path: "Frame.PrevInstr", CType: "_PyInterpreterFrame", Member: "prev_instr", Since: 11, Before: 13},
	{Path: "Frame.InstrPtr", CType: "_PyInterpreterFrame", Member: "instr_ptr", Since: 13},
	{Path: "Frame.StackTop", CType: "_PyInterpreterFrame", Member: "stacktop", Since: 11, Before: 13},
	{Path: "Frame.Localsplus", CType: "_PyInterpreterFrame", Member: "localsplus", Since: 11},
	{Path: "Frame.IsEntry", CType: "_PyInterpreterFrame", Member: "is_entry", Since: 11, Before: 12},
	{Path: "Frame.Owner", CType: "_PyInterpreterFrame", Member: "owner", Since: 11},
	{Path: "Frame.OwnerThread", Kind: Enumerator, Member: "FRAME_OWNED_BY_THREAD", Since: 11},
	{Path: "Frame.OwnerGenerator", Kind: Enumerator, Member: "FRAME_OWNED_BY_GENERATOR", Since: 11},
	{Path: "Frame.OwnerFrameObject", Kind: Enumerator, Member: "FRAME_OWNED_BY_FRAME_OBJECT", Since: 11},
	{Path: "Frame.OwnerCStack", Kind: Enumerator, Member: "FRAME_OWNED_BY_CSTACK", Since: 12},

	{Path: "FrameObject.Back", CType: "PyFrameObject", Member: "f_back", Since: 6},
	{Path: "FrameObject.Code", CType: "PyFrameObject", Member: "f_code", Since: 6, Before: 11},
	{Path: "FrameObject.Lasti", CType: "PyFrameObject", Member: "f_lasti", Since: 6, Before: 11},
	{Path: "FrameObject.Lineno", CType: "PyFrameObject", Member: "f_lineno", Since: 6},
	{Path: "FrameObject.Frame", CType: "PyFrameObject", Member: "f_frame", Since: 11},

	{Path: "Code.Size", Kind: SizeOf, CType: "PyCodeObject", Since: 6, Before: 11},
	// From 3.11 the instructions follow the fixed part of the object.
	{Path: "Code.Size", CType: "PyCodeObject", Member: "co_code_adaptive", Since: 11},
	{Path: "Code.Argcount", CType: "PyCodeObject", Member: "co_argcount", Since: 6},
	{Path: "Code.FirstLineno", CType: "PyCodeObject", Member: "co_firstlineno", Since: 6},
	{Path: "Code.Filename", CType: "PyCodeObject", Member: "co_filename", Since: 6},
	{Path: "Code.Name", CType: "PyCodeObject", Member: "co_name", Since: 6},
	{Path: "Code.Qualname", CType: "PyCodeObject", Member: "co_qualname", Since: 11},
	{Path: "Code.Lnotab", CType: "PyCodeObject", Member: "co_lnotab", Since: 6, Before: 10},
	{Path: "Code.Linetable", CType: "PyCodeObject", Member: "co_linetable", Since: 10},
	{Path: "Code.CodeBytes", CType: "PyCodeObject", Member: "co_code", Since: 6, Before: 11},
	{Path: "Code.CodeAdaptive", CType: "PyCodeObject", Member: "co_code_adaptive", Since: 11},
	{Path: "Code.CodeUnitSize", Kind: SizeOf, CType: "_Py_CODEUNIT", Since: 6},

	{Path: "Unicode.Length", CType: "PyASCIIObject", Member: "length", Since: 6},
	{Path: "Unicode.State", CType: "PyASCIIObject", Member: "state", Since: 6},
	{Path: "Unicode.ASCIISize", Kind: SizeOf, CType: "PyASCIIObject", Since: 6},
	{Path: "Unicode.CompactSize", Kind: SizeOf, CType: "PyCompactUnicodeObject", Since: 6},
	{Path: "Unicode.Data", CType: "PyUnicodeObject", Member: "data.any", Since: 6, Before: 12},
	{Path: "Unicode.KindMask", Kind: BitMask, CType: "PyASCIIObject", Member: "state.kind", Width: 3, Since: 6},
	{Path: "Unicode.CompactMask", Kind: BitMask, CType: "PyASCIIObject", Member: "state.compact", Width: 1, Since: 6},
	{Path: "Unicode.ASCIIMask", Kind: BitMask, CType: "PyASCIIObject", Member: "state.ascii", Width: 1, Since: 6},
	{Path: "Unicode.ReadyMask", Kind: BitMask, CType: "PyASCIIObject", Member: "state.ready", Width: 1, Since: 6, Before: 12},

	{Path: "Bytes.Size", CType: "PyBytesObject", Member: "ob_base.ob_size", Since: 6},
	{Path: "Bytes.Sval", CType: "PyBytesObject", Member: "ob_sval", Since: 6},
	{Path: "Tuple.Size", CType: "PyTupleObject", Member: "ob_base.ob_size", Since: 6},
	{Path: "Tuple.Item", CType: "PyTupleObject", Member: "ob_item", Since: 6},
	{Path: "Type.Name", CType: "PyTypeObject", Member: "tp_name", Since: 6},
	{Path: "Type.Flags", CType: "PyTypeObject", Member: "tp_flags", Since: 6},
	{Path: "Exception.Args", CType: "PyBaseExceptionObject", Member: "args", Since: 6},
}

package pylayout

import (
	"fmt"
	"math/bits"
	"reflect"
)

// Offset is a member's byte offset from the start of its struct, or Absent
// where this version or build has no such member.
type Offset int64

// Absent marks a member this CPython version or build does not have.
const Absent Offset = -1

// Present says whether the member exists in this layout.
func (o Offset) Present() bool { return o >= 0 }

// Version is a CPython feature release (3.11 for 3.11.7).
type Version struct{ Major, Minor int }

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// AtLeast says whether v is major.minor or later.
func (v Version) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

// Build is a build flavour that changes struct layouts.
type Build uint8

const (
	// Debug is a Py_DEBUG build (python3.11-dbg, ./configure --with-pydebug):
	// before 3.8 it implies Py_TRACE_REFS, which adds two pointers to every
	// object's header; internal structs gain debug-only members.
	Debug Build = 1 << iota
	// FreeThreaded is a Py_GIL_DISABLED build (3.13t): a larger object
	// header and a GIL that can be disabled.
	FreeThreaded
)

// Release is the default build: no Py_DEBUG, with the GIL.
const Release Build = 0

func (b Build) String() string {
	switch b {
	case Release:
		return "release"
	case Debug:
		return "debug"
	case FreeThreaded:
		return "free-threaded"
	case Debug | FreeThreaded:
		return "debug free-threaded"
	}
	return fmt.Sprintf("Build(%d)", uint8(b))
}

// Source says where a Layout's values came from.
type Source uint8

const (
	FromHeaders    Source = iota + 1 // the generated table
	FromDWARFInfo                    // libpython's debug information
	FromDebugTable                   // _Py_DebugOffsets in the core
)

func (s Source) String() string {
	switch s {
	case FromHeaders:
		return "headers"
	case FromDWARFInfo:
		return "DWARF"
	case FromDebugTable:
		return "_Py_DebugOffsets"
	}
	return fmt.Sprintf("Source(%d)", uint8(s))
}

// Layout is, for one CPython version and build, where every member the
// reader follows sits. All offsets are for a 64-bit little-endian target
// (x86-64, aarch64, ...) unless the layout came from DWARF or
// _Py_DebugOffsets, which describe their own target.
type Layout struct {
	Version Version
	Build   Build
	Source  Source

	Object       Object
	Runtime      Runtime
	Interp       Interp
	GIL          GIL
	Thread       Thread
	ErrStackItem ErrStackItem
	CFrame       CFrame
	Frame        InterpreterFrame
	FrameObject  FrameObject
	Code         Code
	Unicode      Unicode
	Bytes        Bytes
	Tuple        Tuple
	Type         Type
	Exception    Exception
}

// Object is PyObject's and PyVarObject's header.
type Object struct {
	Size    Offset // sizeof(PyObject)
	Refcnt  Offset // ob_refcnt (ob_ref_local in free-threaded builds)
	Type    Offset // ob_type
	VarSize Offset // PyVarObject.ob_size
}

// Runtime is _PyRuntimeState, the struct behind the _PyRuntime symbol (3.7+).
type Runtime struct {
	Size             Offset // sizeof(_PyRuntimeState)
	Finalizing       Offset // _finalizing (finalizing before 3.9): the thread state finalizing Python, or NULL
	InterpretersHead Offset // interpreters.head: PyInterpreterState*
	InterpretersMain Offset // interpreters.main: PyInterpreterState*
	// TstateCurrent is gilstate.tstate_current (3.7-3.11): the thread state
	// holding the GIL. From 3.12 it is a thread-local variable.
	TstateCurrent Offset
	// GIL is ceval.gil, the embedded struct _gil_runtime_state (3.7-3.11).
	// From 3.12 each interpreter points to its GIL: Interp.GIL.
	GIL Offset
}

// Interp is PyInterpreterState.
type Interp struct {
	Size        Offset
	Next        Offset // next: PyInterpreterState*
	ThreadsHead Offset // threads.head (3.11+) or tstate_head: PyThreadState*
	ID          Offset // id: int64_t
	// GIL is ceval.gil (3.12+): a pointer to the struct _gil_runtime_state
	// this interpreter runs under.
	GIL Offset
}

// GIL is struct _gil_runtime_state.
type GIL struct {
	Locked     Offset // locked: int, 1 while some thread holds the GIL
	LastHolder Offset // last_holder: PyThreadState*, the holder when Locked
	Enabled    Offset // enabled: int (free-threaded builds: 0 when the GIL is off)
}

// Thread is PyThreadState.
type Thread struct {
	Size   Offset
	Prev   Offset
	Next   Offset
	Interp Offset
	// The current Python frame is found through exactly one of these:
	// Frame (<= 3.10, a PyFrameObject*), CFrame (3.11-3.12, a _PyCFrame*
	// whose CFrame.CurrentFrame is the _PyInterpreterFrame*), or
	// CurrentFrame (3.13+, a _PyInterpreterFrame*).
	Frame          Offset
	CFrame         Offset
	CurrentFrame   Offset
	ThreadID       Offset // thread_id: unsigned long, pthread_self()
	NativeThreadID Offset // native_thread_id: unsigned long, the kernel's TID (3.11+)
	// The exception being raised: CurExcType/Value/Traceback (<= 3.11) or
	// CurrentException (3.12+), all PyObject*.
	CurExcType       Offset
	CurExcValue      Offset
	CurExcTraceback  Offset
	CurrentException Offset
	// The exception being handled: ExcInfo points to the innermost
	// _PyErr_StackItem (ErrStackItem); ExcState is the one embedded here.
	ExcInfo        Offset
	ExcState       Offset
	DatastackChunk Offset // datastack_chunk (3.11+)
}

// ErrStackItem is _PyErr_StackItem: an exception being handled.
type ErrStackItem struct {
	ExcType      Offset // exc_type (<= 3.10)
	ExcValue     Offset // exc_value
	ExcTraceback Offset // exc_traceback (<= 3.10)
	PreviousItem Offset // previous_item: _PyErr_StackItem*
}

// CFrame is _PyCFrame (3.11-3.12; 3.10 has one too, without the frame).
type CFrame struct {
	CurrentFrame Offset // current_frame: _PyInterpreterFrame* (3.11-3.12)
	Previous     Offset // previous: _PyCFrame*
}

// InterpreterFrame is _PyInterpreterFrame (3.11+), the frame the evaluator
// runs; several of them can run in one C call of _PyEval_EvalFrameDefault.
type InterpreterFrame struct {
	Size Offset // sizeof(_PyInterpreterFrame), where localsplus starts
	// Code is f_code (3.11-3.12) or f_executable (3.13+): the code
	// object. Frames owned by OwnerCStack are the evaluator's entry shims
	// (3.12: a trampoline code object; 3.13: None), not Python functions;
	// from 3.13 check the object's type before reading it as code.
	Code     Offset
	Previous Offset // previous: _PyInterpreterFrame*
	// PrevInstr (3.11-3.12) is prev_instr, the code unit before the next
	// instruction; InstrPtr (3.13+) is instr_ptr, the instruction running
	// or about to run. Both point into Code.CodeAdaptive.
	PrevInstr  Offset
	InstrPtr   Offset
	StackTop   Offset // stacktop (3.11-3.12): int
	Localsplus Offset
	// IsEntry (3.11) is a bool: this frame is the first one its C call of
	// the evaluator runs. From 3.12 the evaluator pushes a frame owned by
	// OwnerCStack beneath the first frame it runs instead.
	IsEntry Offset
	Owner   Offset // owner: char, one of the Owner* values
	// Owner values (enum _frameowner); OwnerCStack is -1 before 3.12.
	OwnerThread, OwnerGenerator, OwnerFrameObject, OwnerCStack int64
}

// FrameObject is PyFrameObject: the frame itself up to 3.10; from 3.11 a
// Python-visible wrapper whose Frame points to the _PyInterpreterFrame.
type FrameObject struct {
	Back   Offset // f_back: PyFrameObject*
	Code   Offset // f_code (<= 3.10): PyCodeObject*
	Lasti  Offset // f_lasti (<= 3.10): int, byte offset (<= 3.9) or code-unit index (3.10) of the last instruction
	Lineno Offset // f_lineno: int, valid only while tracing
	Frame  Offset // f_frame (3.11+): _PyInterpreterFrame*
}

// Code is PyCodeObject.
type Code struct {
	Size        Offset // sizeof(PyCodeObject) without the instructions
	Argcount    Offset // co_argcount: int
	FirstLineno Offset // co_firstlineno: int
	Filename    Offset // co_filename: str
	Name        Offset // co_name: str
	Qualname    Offset // co_qualname (3.11+): str
	// The line table, a bytes object: Lnotab (co_lnotab, <= 3.9) or
	// Linetable (co_linetable, 3.10+); see package pyruntime/linetable.
	Lnotab    Offset
	Linetable Offset
	// The instructions: CodeBytes (co_code, <= 3.10) points to a bytes
	// object; from 3.11 they are inline at CodeAdaptive (co_code_adaptive).
	CodeBytes    Offset
	CodeAdaptive Offset
	CodeUnitSize Offset // sizeof(_Py_CODEUNIT): 2
}

// Unicode is PyASCIIObject / PyCompactUnicodeObject / PyUnicodeObject.
// A compact ASCII string's characters follow the PyASCIIObject header
// (at ASCIISize); other compact strings' follow PyCompactUnicodeObject
// (at CompactSize); legacy strings (<= 3.11) keep them at *Data.
type Unicode struct {
	Length      Offset // length: Py_ssize_t, in code points
	State       Offset // state: a 32-bit word of bit fields
	ASCIISize   Offset // sizeof(PyASCIIObject)
	CompactSize Offset // sizeof(PyCompactUnicodeObject)
	Data        Offset // PyUnicodeObject data.any: void* (legacy strings)
	// Masks of state's bit fields, read as a uint32 at State in the
	// target's byte order (the generated table's: little-endian).
	// ReadyMask is 0 from 3.12, where every string is ready.
	KindMask, CompactMask, ASCIIMask, ReadyMask uint32
}

// Kind is a string's bytes a character (1, 2 or 4) from its state word.
func (u Unicode) Kind(state uint32) int {
	return int(state&u.KindMask) >> bits.TrailingZeros32(u.KindMask)
}

// Compact says the characters follow the header (at ASCIISize when
// ASCII, else at CompactSize) rather than sit at *Data.
func (u Unicode) Compact(state uint32) bool { return state&u.CompactMask != 0 }

// ASCII says every character is below 128.
func (u Unicode) ASCII(state uint32) bool { return state&u.ASCIIMask != 0 }

// Ready says a legacy string (<= 3.11) has its canonical representation;
// strings are always ready from 3.12.
func (u Unicode) Ready(state uint32) bool { return u.ReadyMask == 0 || state&u.ReadyMask != 0 }

// Bytes is PyBytesObject.
type Bytes struct {
	Size Offset // ob_size: Py_ssize_t
	Sval Offset // ob_sval: the bytes
}

// Tuple is PyTupleObject.
type Tuple struct {
	Size Offset // ob_size: Py_ssize_t
	Item Offset // ob_item: PyObject*[]
}

// Type is PyTypeObject.
type Type struct {
	Name  Offset // tp_name: const char*
	Flags Offset // tp_flags: unsigned long
}

// Exception is PyBaseExceptionObject.
type Exception struct {
	Args Offset // args: tuple
}

// Empty is a Layout whose every Offset is Absent and every enum value -1:
// where the readers of each source start, filling in only what it has.
func Empty() Layout {
	var l Layout
	setAbsent(reflect.ValueOf(&l).Elem())
	return l
}

func setAbsent(v reflect.Value) {
	switch {
	case v.Type() == reflect.TypeFor[Offset]():
		v.SetInt(int64(Absent))
	case v.Kind() == reflect.Struct && v.Type() != reflect.TypeFor[Version]():
		for i := range v.NumField() {
			setAbsent(v.Field(i))
		}
	case v.Kind() == reflect.Int64:
		v.SetInt(-1)
	}
}

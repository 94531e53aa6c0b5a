package pylayout

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// DebugCookie starts _Py_DebugOffsets, the table CPython 3.13+ keeps at
// the start of _PyRuntime so that debuggers need no headers or DWARF.
const DebugCookie = "xdebugpy"

// DebugOffsetsSize is how many bytes of _PyRuntime FromDebugOffsets reads:
// the size of 3.13's _Py_DebugOffsets (the cookie, then 72 uint64s).
const DebugOffsetsSize = 8 + 72*8

// ErrNoDebugOffsets says bytes are not a _Py_DebugOffsets table this
// package can read.
var ErrNoDebugOffsets = errors.New("no _Py_DebugOffsets")

// maxStructSize bounds the struct sizes a table may claim: _PyRuntimeState,
// the largest, is under 512 KiB in every release so far.
const maxStructSize = 16 << 20

// debugOffsets313 is 3.13's _Py_DebugOffsets after the cookie, in order:
// each name is the member of the C struct, each path the Layout member it
// fills ("" for members the reader has no use for). Sections start with
// their struct's size, which bounds the offsets after it.
var debugOffsets313 = []struct{ name, path string }{
	{"version", ""}, {"free_threaded", ""},
	{"runtime_state.size", "Runtime.Size"},
	{"runtime_state.finalizing", "Runtime.Finalizing"},
	{"runtime_state.interpreters_head", "Runtime.InterpretersHead"},
	{"interpreter_state.size", "Interp.Size"},
	{"interpreter_state.id", "Interp.ID"},
	{"interpreter_state.next", "Interp.Next"},
	{"interpreter_state.threads_head", "Interp.ThreadsHead"},
	{"interpreter_state.gc", ""},
	{"interpreter_state.imports_modules", ""},
	{"interpreter_state.sysdict", ""},
	{"interpreter_state.builtins", ""},
	{"interpreter_state.ceval_gil", "Interp.GIL"},
	{"interpreter_state.gil_runtime_state", ""},
	{"interpreter_state.gil_runtime_state_enabled", ""},
	{"interpreter_state.gil_runtime_state_locked", ""},
	{"interpreter_state.gil_runtime_state_holder", ""},
	{"thread_state.size", "Thread.Size"},
	{"thread_state.prev", "Thread.Prev"},
	{"thread_state.next", "Thread.Next"},
	{"thread_state.interp", "Thread.Interp"},
	{"thread_state.current_frame", "Thread.CurrentFrame"},
	{"thread_state.thread_id", "Thread.ThreadID"},
	{"thread_state.native_thread_id", "Thread.NativeThreadID"},
	{"thread_state.datastack_chunk", "Thread.DatastackChunk"},
	{"thread_state.status", ""},
	{"interpreter_frame.size", "Frame.Size"},
	{"interpreter_frame.previous", "Frame.Previous"},
	{"interpreter_frame.executable", "Frame.Code"},
	{"interpreter_frame.instr_ptr", "Frame.InstrPtr"},
	{"interpreter_frame.localsplus", "Frame.Localsplus"},
	{"interpreter_frame.owner", "Frame.Owner"},
	{"code_object.size", ""},
	{"code_object.filename", "Code.Filename"},
	{"code_object.name", "Code.Name"},
	{"code_object.qualname", "Code.Qualname"},
	{"code_object.linetable", "Code.Linetable"},
	{"code_object.firstlineno", "Code.FirstLineno"},
	{"code_object.argcount", "Code.Argcount"},
	{"code_object.localsplusnames", ""},
	{"code_object.localspluskinds", ""},
	{"code_object.co_code_adaptive", "Code.CodeAdaptive"},
	{"pyobject.size", "Object.Size"},
	{"pyobject.ob_type", "Object.Type"},
	{"type_object.size", ""},
	{"type_object.tp_name", "Type.Name"},
	{"type_object.tp_repr", ""},
	{"type_object.tp_flags", "Type.Flags"},
	{"tuple_object.size", ""},
	{"tuple_object.ob_item", "Tuple.Item"},
	{"tuple_object.ob_size", "Tuple.Size"},
	{"list_object.size", ""}, {"list_object.ob_item", ""}, {"list_object.ob_size", ""},
	{"dict_object.size", ""}, {"dict_object.ma_keys", ""}, {"dict_object.ma_values", ""},
	{"float_object.size", ""}, {"float_object.ob_fval", ""},
	{"long_object.size", ""}, {"long_object.lv_tag", ""}, {"long_object.ob_digit", ""},
	{"bytes_object.size", ""},
	{"bytes_object.ob_size", "Bytes.Size"},
	{"bytes_object.ob_sval", "Bytes.Sval"},
	{"unicode_object.size", ""},
	{"unicode_object.state", "Unicode.State"},
	{"unicode_object.length", "Unicode.Length"},
	{"unicode_object.asciiobject_size", "Unicode.ASCIISize"},
	{"gc.size", ""}, {"gc.collecting", ""},
}

// FromDebugOffsets reads the layout in a _Py_DebugOffsets table: b is the
// start of _PyRuntime (at least DebugOffsetsSize bytes), order the
// target's byte order. The table describes only some members (not the
// exception being raised or handled, string state bits, PyFrameObject,
// FRAME_OWNED_BY_* values): Complete the result with the generated
// layout of its Version and Build. Only 3.13's table layout is known;
// other versions' are errors wrapping ErrUnknownVersion.
func FromDebugOffsets(b []byte, order binary.ByteOrder) (Layout, error) {
	if len(b) < 16 || string(b[:8]) != DebugCookie {
		return Layout{}, fmt.Errorf("%w: no %q cookie", ErrNoDebugOffsets, DebugCookie)
	}
	hex := order.Uint64(b[8:])
	v := VersionFromHex(hex)
	if v != (Version{3, 13}) {
		return Layout{}, fmt.Errorf("_Py_DebugOffsets of CPython %s (%#x): %w", v, hex, ErrUnknownVersion)
	}
	if len(b) < DebugOffsetsSize {
		return Layout{}, fmt.Errorf("%w: %d bytes, want %d", ErrNoDebugOffsets, len(b), DebugOffsetsSize)
	}
	vals := map[string]uint64{}
	for i, m := range debugOffsets313 {
		vals[m.name] = order.Uint64(b[8+8*i:])
	}
	l := Empty()
	l.Version, l.Source = v, FromDebugTable
	switch vals["free_threaded"] {
	case 0:
	case 1:
		l.Build = FreeThreaded
	default:
		return Layout{}, fmt.Errorf("%w: free_threaded is %d", ErrNoDebugOffsets, vals["free_threaded"])
	}
	var size uint64
	for _, m := range debugOffsets313[2:] {
		val := vals[m.name]
		if strings.HasSuffix(m.name, ".size") {
			if val == 0 || val > maxStructSize {
				return Layout{}, fmt.Errorf("%w: %s is %d", ErrNoDebugOffsets, m.name, val)
			}
			size = val
		} else if val >= size {
			// Every offset lies inside its struct (the GIL's inside the
			// interpreter state, which embeds it).
			return Layout{}, fmt.Errorf("%w: %s %d is past the struct's %d bytes", ErrNoDebugOffsets, m.name, val, size)
		}
		if m.path == "" {
			continue
		}
		if err := l.Set(m.path, int64(val)); err != nil {
			return Layout{}, err
		}
	}
	// The interpreter's own GIL: its members relative to the struct.
	gil := vals["interpreter_state.gil_runtime_state"]
	for _, m := range []struct {
		name, path string
	}{{"interpreter_state.gil_runtime_state_locked", "GIL.Locked"}, {"interpreter_state.gil_runtime_state_holder", "GIL.LastHolder"}} {
		val := vals[m.name]
		if val < gil {
			return Layout{}, fmt.Errorf("%w: %s %d is outside the GIL at %d", ErrNoDebugOffsets, m.name, val, gil)
		}
		if err := l.Set(m.path, int64(val-gil)); err != nil {
			return Layout{}, err
		}
	}
	if l.Build == FreeThreaded {
		// Unlike its neighbours, gil_runtime_state_enabled is relative to
		// the GIL struct (0 in builds with the GIL).
		l.GIL.Enabled = Offset(vals["interpreter_state.gil_runtime_state_enabled"])
	}
	// From 3.11 a code object's fixed part ends where its instructions start.
	l.Code.Size = l.Code.CodeAdaptive
	return l, nil
}

// Complete fills every member l lacks (Absent offsets, -1 enumerator
// values, zero masks) from fallback, normally the generated layout of the
// same version and build; members l has are kept.
func (l Layout) Complete(fallback Layout) Layout {
	complete(reflect.ValueOf(&l).Elem(), reflect.ValueOf(fallback))
	return l
}

func complete(dst, src reflect.Value) {
	switch {
	case dst.Type() == reflect.TypeFor[Version](), dst.Type() == reflect.TypeFor[Build](), dst.Type() == reflect.TypeFor[Source]():
	case dst.Kind() == reflect.Struct:
		for i := range dst.NumField() {
			complete(dst.Field(i), src.Field(i))
		}
	case dst.CanInt():
		if dst.Int() < 0 {
			dst.SetInt(src.Int())
		}
	case dst.CanUint():
		if dst.Uint() == 0 {
			dst.SetUint(src.Uint())
		}
	}
}

// DebugOffsetsInELF returns the first DebugOffsetsSize bytes of _PyRuntime
// as a libpython (or a python linking it statically) initializes it: the
// _Py_DebugOffsets table of a 3.13+ build, the same bytes a core holds.
func DebugOffsetsInELF(f *elf.File) ([]byte, error) {
	syms, err := f.DynamicSymbols()
	if err != nil || !hasSymbol(syms, "_PyRuntime") {
		syms, err = f.Symbols()
		if err != nil {
			return nil, fmt.Errorf("no _PyRuntime symbol: %w", err)
		}
	}
	for _, s := range syms {
		if s.Name != "_PyRuntime" || int(s.Section) <= 0 || int(s.Section) >= len(f.Sections) {
			continue
		}
		sec := f.Sections[s.Section]
		if sec.Type != elf.SHT_PROGBITS || s.Value < sec.Addr || s.Value-sec.Addr+DebugOffsetsSize > sec.Size {
			return nil, fmt.Errorf("_PyRuntime at %#x: not initialized data in %s", s.Value, sec.Name)
		}
		b := make([]byte, DebugOffsetsSize)
		if _, err := sec.ReadAt(b, int64(s.Value-sec.Addr)); err != nil {
			return nil, fmt.Errorf("reading _PyRuntime in %s: %w", sec.Name, err)
		}
		return b, nil
	}
	return nil, errors.New("no _PyRuntime symbol")
}

func hasSymbol(syms []elf.Symbol, name string) bool {
	for _, s := range syms {
		if s.Name == name {
			return true
		}
	}
	return false
}

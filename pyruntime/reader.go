package pyruntime

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/pyruntime/linetable"
	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
)

// Memory reads the target's memory (an unwind.AddrSpace is one).
type Memory interface {
	ReadMem(addr uint64, p []byte) error
}

// Symbol names the reader needs: Binary.Symbols holds their values.
const (
	// SymRuntime is the runtime state, the root of everything read.
	SymRuntime = "_PyRuntime"
	// SymVersion is PY_VERSION_HEX as a variable (3.11 on).
	SymVersion = "Py_Version"
	// EvalFunction is the C function that runs Python frames: the
	// native frames the Python ones replace.
	EvalFunction = "_PyEval_EvalFrameDefault"
)

// SymbolNames are the symbols to look up for Binary.Symbols.
var SymbolNames = []string{SymRuntime, SymVersion, SymUnicodeType, SymCodeType, SymBytesType, SymTupleType, SymNone,
	pylayout.SymRefDebug, pylayout.SymFreeThreaded}

// IsPython reports whether symbols (a Binary's) name the module holding
// a CPython interpreter: an executable with libpython linked in, or
// libpython itself.
func IsPython(symbols map[string]uint64) bool {
	_, ok := symbols[SymRuntime]
	return ok
}

// Binary is what the reader needs of the module holding the interpreter.
type Binary struct {
	// Name is the module's file name: libpython3.9.so.1.0 or python3.9
	// give the version where no symbol does (before 3.11).
	Name string
	// Symbols are link-time values of SymbolNames (absent: not defined).
	Symbols map[string]uint64
	// DWARF, when set, gives the module's debug information, whose
	// struct types are the layout when they describe it (nil: none).
	DWARF DWARFFunc
	// Bias is the load bias: run-time address = link-time + Bias.
	Bias    uint64
	PtrSize int // 4 or 8
	Order   binary.ByteOrder
}

// Bounds on what memory may make the reader do.
const (
	// MaxThreads bounds the thread states read from all interpreters.
	MaxThreads = 1 << 14
	// MaxInterpreters bounds the interpreter list.
	MaxInterpreters = 1 << 10
	// MaxFrames bounds one thread's Python frames (the default
	// recursion limit is 1000; a raised one is read to this depth).
	MaxFrames = 1 << 17
	// MaxTotalFrames bounds the frames of all threads together: what a
	// core can make the reader walk.
	MaxTotalFrames = 1 << 20
	// maxString bounds a name, file name or exception message read.
	maxString = 4096
	// maxLinetable bounds the line table read for one code object.
	maxLinetable = 1 << 20
	// maxWarnings bounds the warnings of one read.
	maxWarnings = 16
)

// Reader reads Python threads from a CPython process's memory.
type Reader struct {
	b       Binary
	layout  *pylayout.Layout
	format  linetable.Format
	version string
	// maxTotalFrames, when set, lowers MaxTotalFrames (the fuzz test's
	// inputs would otherwise spend seconds each on frame chains).
	maxTotalFrames int
}

// ErrUnsupported says the interpreter's version has no known layout.
var ErrUnsupported = errors.New("no struct layout for this Python version")

// NewReader returns a reader for the interpreter b describes, mem its
// memory. An error when b holds no interpreter or its layout is not
// known.
func NewReader(b Binary, mem Memory) (*Reader, error) {
	if !IsPython(b.Symbols) {
		return nil, fmt.Errorf("pyruntime: no %s: not a CPython interpreter", SymRuntime)
	}
	if b.PtrSize != 4 && b.PtrSize != 8 {
		return nil, fmt.Errorf("pyruntime: pointer size %d", b.PtrSize)
	}
	l, hex, err := findLayout(&b, mem)
	if err != nil {
		return nil, fmt.Errorf("pyruntime: %w", err)
	}
	f, ok := linetable.FormatOf(l.Version)
	if !ok {
		return nil, fmt.Errorf("pyruntime: CPython %s: %w", l.Version, ErrUnsupported)
	}
	r := &Reader{b: b, layout: &l, format: f, version: l.Version.String()}
	if hex>>16&0xff == uint32(l.Version.Minor) && hex&0xffff != 0 {
		r.version = VersionString(hex)
	}
	return r, nil
}

// Version is the interpreter's version: "3.11.2" where the process
// says it, else its feature release ("3.9") from the module's name.
func (r *Reader) Version() string { return r.version }

// Layout is the struct layout the reader follows.
func (r *Reader) Layout() *pylayout.Layout { return r.layout }

// VersionString prints a PY_VERSION_HEX as Python prints its version
// ("3.11.2"; a pre-release with its level and serial: "3.13.0rc1").
func VersionString(v uint32) string {
	s := fmt.Sprintf("%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff)
	switch level, serial := v>>4&0xf, v&0xf; level {
	case 0xa:
		s += fmt.Sprintf("a%d", serial)
	case 0xb:
		s += fmt.Sprintf("b%d", serial)
	case 0xc:
		s += fmt.Sprintf("rc%d", serial)
	}
	return s
}

// word reads a pointer-sized word at addr.
func (r *Reader) word(mem Memory, addr uint64) (uint64, error) {
	var buf [8]byte
	p := buf[:r.b.PtrSize]
	if err := mem.ReadMem(addr, p); err != nil {
		return 0, err
	}
	return r.decodeWord(p), nil
}

func (r *Reader) decodeWord(p []byte) uint64 {
	if len(p) == 4 {
		return uint64(r.b.Order.Uint32(p))
	}
	return r.b.Order.Uint64(p)
}

// field reads the pointer-sized member at off of the struct at base; 0
// for a member the layout lacks (off < 0).
func (r *Reader) field(mem Memory, base uint64, off pylayout.Offset) (uint64, error) {
	if !off.Present() {
		return 0, nil
	}
	return r.word(mem, base+uint64(off))
}

// readable says whether the n bytes at addr can be read, by their last
// byte: a size read from memory is believed only once the bytes it
// claims are there, before anything is allocated for them.
func (r *Reader) readable(mem Memory, addr, n uint64) error {
	if n == 0 {
		return nil
	}
	if addr+n < addr {
		return fmt.Errorf("%d bytes at %#x wrap around", n, addr)
	}
	var b [1]byte
	return mem.ReadMem(addr+n-1, b[:])
}

// int32At reads a C int at addr.
func (r *Reader) int32At(mem Memory, addr uint64) (int32, error) {
	var buf [4]byte
	if err := mem.ReadMem(addr, buf[:]); err != nil {
		return 0, err
	}
	return int32(r.b.Order.Uint32(buf[:])), nil
}

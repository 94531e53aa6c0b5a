package gopclntab

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Magic numbers of the pclntab header (runtime.pcHeader.magic).
const (
	magic118 = 0xfffffff0 // Go 1.18, 1.19
	magic120 = 0xfffffff1 // Go 1.20 and later
)

// FormatError says where in the table the bytes are not what the format
// allows.
type FormatError struct {
	Off int64 // byte offset in the .gopclntab data
	Msg string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("gopclntab: %s at offset %#x", e.Msg, e.Off)
}

// byteOrder reads and appends in the table's byte order.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// Table is a parsed .gopclntab.
type Table struct {
	data    []byte
	order   byteOrder
	ptrSize int
	quantum uint64 // instruction size unit of pc deltas
	text    uint64 // address function entries are offsets from
	nfunc   int

	funcnames, cutab, filetab, pctab, functab []byte

	// gofunc holds the bytes at moduledata.gofunc, where FUNCDATA
	// offsets point (the inlining trees); nil when unknown.
	gofunc []byte
}

// Parse reads the header of a .gopclntab. text is the address of the
// module's text (moduledata.text: the .text section's start in an ELF
// executable), which function entries are offsets from.
func Parse(data []byte, text uint64) (*Table, error) {
	if len(data) < 8 {
		return nil, &FormatError{0, "table shorter than its header"}
	}
	var order byteOrder = binary.LittleEndian
	switch {
	case binary.LittleEndian.Uint32(data) == magic120 || binary.LittleEndian.Uint32(data) == magic118:
	case binary.BigEndian.Uint32(data) == magic120 || binary.BigEndian.Uint32(data) == magic118:
		order = binary.BigEndian
	default:
		return nil, &FormatError{0, fmt.Sprintf("magic %#x is not Go 1.18 or later's", binary.LittleEndian.Uint32(data))}
	}
	if data[4] != 0 || data[5] != 0 {
		return nil, &FormatError{4, "header padding is not zero"}
	}
	t := &Table{data: data, order: order, quantum: uint64(data[6]), ptrSize: int(data[7]), text: text}
	if t.quantum != 1 && t.quantum != 2 && t.quantum != 4 {
		return nil, &FormatError{6, fmt.Sprintf("instruction size quantum %d", t.quantum)}
	}
	if t.ptrSize != 4 && t.ptrSize != 8 {
		return nil, &FormatError{7, fmt.Sprintf("pointer size %d", t.ptrSize)}
	}
	// Eight words: nfunc, nfiles, (textStart), and five offsets.
	if len(data) < 8+8*t.ptrSize {
		return nil, &FormatError{8, "table shorter than its header"}
	}
	word := func(i int) uint64 {
		off := 8 + i*t.ptrSize
		if t.ptrSize == 4 {
			return uint64(order.Uint32(data[off:]))
		}
		return order.Uint64(data[off:])
	}
	nfunc := word(0)
	var err error
	sub := func(i int) []byte {
		off := word(i)
		if err == nil && off > uint64(len(data)) {
			err = &FormatError{int64(8 + i*t.ptrSize), fmt.Sprintf("offset %#x past the table's %#x bytes", off, len(data))}
		}
		if err != nil {
			return nil
		}
		return data[off:]
	}
	t.funcnames, t.cutab, t.filetab, t.pctab, t.functab = sub(3), sub(4), sub(5), sub(6), sub(7)
	if err != nil {
		return nil, err
	}
	// The function table: nfunc+1 pairs of uint32 (entry offset,
	// _func offset), the last entry's being the end of the text.
	if nfunc == 0 || nfunc >= uint64(len(t.functab))/8 {
		return nil, &FormatError{8, fmt.Sprintf("%d functions in a function table of %d bytes", nfunc, len(t.functab))}
	}
	t.nfunc = int(nfunc)
	return t, nil
}

// PtrSize is the target's pointer size, 4 or 8.
func (t *Table) PtrSize() int { return t.ptrSize }

// Quantum is the target's instruction size unit (1 on x86, 4 on most
// RISC targets).
func (t *Table) Quantum() uint64 { return t.quantum }

// NumFuncs is the number of functions in the table.
func (t *Table) NumFuncs() int { return t.nfunc }

// SetGoFunc gives the bytes at the module's moduledata.gofunc (where the
// linker's go:func.* symbol is), where the inlining trees are; without
// them a lookup gives no inlined frames.
func (t *Table) SetGoFunc(data []byte) { t.gofunc = data }

// Func is one function of the table.
type Func struct {
	t     *Table
	rec   []byte // the _func record and its pcdata and funcdata arrays
	off   int64  // of rec in the table, for errors
	Entry uint64
	End   uint64
	Name  string
	ID    FuncID
	Flag  FuncFlag
	// StartLine is the line of the func keyword (TEXT directive).
	StartLine int
}

// FuncID marks the runtime's special functions (internal/abi.FuncID).
// Its values change between Go releases: compare with the ID the same
// table gives the function of that name (Table.FuncByName).
type FuncID uint8

// WrapperID is the FuncID the release marks wrappers with
// (internal/abi.FuncIDWrapper: method and ABI wrappers, go statements'
// closures, type algorithms): from Go 1.20 to 1.26 the last of the
// enumeration, one after runtime.systemstack_switch's, whichever the
// numbers are. ok is false when the table has no systemstack_switch.
func (t *Table) WrapperID() (id FuncID, ok bool) {
	f, ok := t.FuncByName("runtime.systemstack_switch")
	if !ok || f.ID == 0 {
		return 0, false
	}
	return f.ID + 1, true
}

// FuncFlag is a function's internal/abi.FuncFlag bits.
type FuncFlag uint8

const (
	// FlagTopFrame: the function is at the top of its stack
	// (runtime.goexit, rt0_go, mstart): unwinding stops there.
	FlagTopFrame FuncFlag = 1 << iota
	// FlagSPWrite: the function writes SP arbitrarily (a stack
	// switch); its SP delta says nothing past that point.
	FlagSPWrite
	// FlagAsm: the function is written in assembly.
	FlagAsm
)

// Fields of _func (runtime/runtime2.go), by byte offset.
const (
	funcEntryOff  = 0
	funcNameOff   = 4
	funcPCSP      = 16
	funcPCFile    = 20
	funcPCLn      = 24
	funcNPCData   = 28
	funcCUOffset  = 32
	funcStartLine = 36
	funcFuncID    = 40
	funcFlag      = 41
	funcNFuncData = 43
	funcSize      = 44
)

// functabEntry returns the i'th function table entry: its entry offset
// from the text and its _func's offset from the function table.
func (t *Table) functabEntry(i int) (entry, funcOff uint32) {
	return t.order.Uint32(t.functab[8*i:]), t.order.Uint32(t.functab[8*i+4:])
}

// FuncAt returns the function whose code holds pc, ok false when none
// does or its record is malformed.
func (t *Table) FuncAt(pc uint64) (Func, bool) {
	if pc < t.text {
		return Func{}, false
	}
	off := pc - t.text
	first, _ := t.functabEntry(0)
	last, _ := t.functabEntry(t.nfunc)
	if off < uint64(first) || off >= uint64(last) {
		return Func{}, false
	}
	// The last entry whose start is at or below off.
	lo, hi := 0, t.nfunc
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if e, _ := t.functabEntry(mid); uint64(e) <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	f, err := t.funcAt(lo)
	return f, err == nil
}

// funcAt decodes the i'th function's record.
func (t *Table) funcAt(i int) (Func, error) {
	entry, funcOff := t.functabEntry(i)
	end, _ := t.functabEntry(i + 1)
	recOff := int64(len(t.data)-len(t.functab)) + int64(funcOff)
	if uint64(funcOff) > uint64(len(t.functab)) || len(t.functab)-int(funcOff) < funcSize {
		return Func{}, &FormatError{recOff, "function record past the table"}
	}
	rec := t.functab[funcOff:]
	n := int(t.order.Uint32(rec[funcNPCData:])) + int(rec[funcNFuncData])
	if uint64(t.order.Uint32(rec[funcNPCData:])) > uint64(len(rec)) || len(rec) < funcSize+4*n {
		return Func{}, &FormatError{recOff, "function record's data arrays past the table"}
	}
	rec = rec[:funcSize+4*n]
	if t.order.Uint32(rec[funcEntryOff:]) != entry {
		return Func{}, &FormatError{recOff, "function record's entry differs from the function table's"}
	}
	f := Func{t: t, rec: rec, off: recOff,
		Entry: t.text + uint64(entry), End: t.text + uint64(end),
		ID: FuncID(rec[funcFuncID]), Flag: FuncFlag(rec[funcFlag]),
		StartLine: int(int32(t.order.Uint32(rec[funcStartLine:]))),
	}
	name, ok := t.funcName(int32(t.order.Uint32(rec[funcNameOff:])))
	if !ok {
		return Func{}, &FormatError{recOff, "function name outside the name table"}
	}
	f.Name = name
	return f, nil
}

// maxName bounds a function or file name: the table's strings end with
// a NUL, and a hostile one may have none.
const maxName = 4096

// funcName is the name at off in the function name table.
func (t *Table) funcName(off int32) (string, bool) {
	return cString(t.funcnames, int64(off))
}

// cString is the NUL-terminated string at off in b.
func cString(b []byte, off int64) (string, bool) {
	if off < 0 || off >= int64(len(b)) {
		return "", false
	}
	s := b[off:min(int64(len(b)), off+maxName)]
	n := bytes.IndexByte(s, 0)
	if n < 0 {
		return "", false
	}
	return string(s[:n]), true
}

// FuncByName returns the function named name (the first, for a name
// given twice), ok false if there is none. It scans the whole table.
func (t *Table) FuncByName(name string) (Func, bool) {
	for i := 0; i < t.nfunc; i++ {
		_, funcOff := t.functabEntry(i)
		if uint64(funcOff)+funcSize > uint64(len(t.functab)) {
			continue
		}
		nameOff := int64(int32(t.order.Uint32(t.functab[funcOff+funcNameOff:])))
		if nameOff < 0 || nameOff+int64(len(name)) >= int64(len(t.funcnames)) ||
			t.funcnames[nameOff+int64(len(name))] != 0 || string(t.funcnames[nameOff:nameOff+int64(len(name))]) != name {
			continue
		}
		if f, err := t.funcAt(i); err == nil {
			return f, true
		}
	}
	return Func{}, false
}

// Funcs calls yield with each function in address order, stopping when
// yield returns false; a malformed record ends the walk with its error.
func (t *Table) Funcs(yield func(Func) bool) error {
	for i := 0; i < t.nfunc; i++ {
		f, err := t.funcAt(i)
		if err != nil {
			return err
		}
		if !yield(f) {
			return nil
		}
	}
	return nil
}

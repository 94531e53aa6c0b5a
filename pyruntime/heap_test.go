package pyruntime

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"testing"

	"github.com/coreunwind/coreunwind/pyruntime/linetable"
	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
)

// fakeMemory is one region of bytes at base.
type fakeMemory struct {
	base uint64
	buf  []byte
}

var errUnmapped = errors.New("unmapped")

func (m *fakeMemory) ReadMem(addr uint64, p []byte) error {
	if addr < m.base || addr-m.base > uint64(len(m.buf)) || uint64(len(p)) > uint64(len(m.buf))-(addr-m.base) {
		return errUnmapped
	}
	copy(p, m.buf[addr-m.base:])
	return nil
}

// heap lays out a CPython process's objects in a fakeMemory, as one
// version's layout places their members.
type heap struct {
	t    testing.TB
	l    pylayout.Layout
	mem  *fakeMemory
	syms map[string]uint64
}

const heapBase = 0x100000

// newHeap makes a heap for CPython v (release build), with its type
// objects, None and _PyRuntime.
func newHeap(t testing.TB, v pylayout.Version) *heap {
	t.Helper()
	l, err := pylayout.Lookup(v, pylayout.Release)
	if err != nil {
		t.Fatal(err)
	}
	h := &heap{t: t, l: l, mem: &fakeMemory{base: heapBase}, syms: map[string]uint64{}}
	for _, sym := range []string{SymUnicodeType, SymCodeType, SymBytesType, SymTupleType, SymNone} {
		h.syms[sym] = h.alloc(16)
	}
	h.syms[SymRuntime] = h.alloc(1024)
	return h
}

// size is what to allocate for a struct of size s: room for the
// members the reader follows (3.13's interpreter has its next at 7264),
// not the whole struct, so that the fuzz test's inputs stay small.
func (h *heap) size(s pylayout.Offset) int {
	return int(min(s, 8192))
}

func (h *heap) alloc(n int) uint64 {
	addr := h.mem.base + uint64(len(h.mem.buf))
	h.mem.buf = append(h.mem.buf, make([]byte, (n+15)&^15)...)
	return addr
}

func (h *heap) at(addr uint64, off pylayout.Offset) []byte {
	if !off.Present() {
		h.t.Fatalf("writing a member this layout lacks")
	}
	return h.mem.buf[addr-h.mem.base+uint64(off):]
}

func (h *heap) word(addr uint64, off pylayout.Offset, v uint64) {
	binary.LittleEndian.PutUint64(h.at(addr, off), v)
}

func (h *heap) int32(addr uint64, off pylayout.Offset, v int32) {
	binary.LittleEndian.PutUint32(h.at(addr, off), uint32(v))
}

func (h *heap) object(typeSym string, n int) uint64 {
	a := h.alloc(n)
	h.word(a, h.l.Object.Type, h.syms[typeSym])
	return a
}

// str is a compact ASCII str object.
func (h *heap) str(s string) uint64 {
	u := &h.l.Unicode
	a := h.object(SymUnicodeType, int(u.ASCIISize)+len(s)+1)
	h.word(a, u.Length, uint64(len(s)))
	state := 1<<bits.TrailingZeros32(u.KindMask) | u.CompactMask | u.ASCIIMask | u.ReadyMask
	binary.LittleEndian.PutUint32(h.at(a, u.State), state)
	copy(h.at(a, u.ASCIISize), s)
	return a
}

func (h *heap) bytesObject(b []byte) uint64 {
	a := h.object(SymBytesType, int(h.l.Bytes.Sval)+len(b)+1)
	h.word(a, h.l.Bytes.Size, uint64(len(b)))
	copy(h.at(a, h.l.Bytes.Sval), b)
	return a
}

// lineTwoOn is a line table, in this version's format, that puts the
// first 8 code units on the line two after the code's first.
func (h *heap) lineTwoOn() []byte {
	f, _ := linetable.FormatOf(h.l.Version)
	switch f {
	case linetable.Lnotab:
		return []byte{0, 2}
	case linetable.Linetable310:
		return []byte{16, 2}
	}
	return []byte{0x80 | 13<<3 | 7, 4} // no columns, 8 units, line +2
}

// code is a code object whose instructions start at the returned instr.
func (h *heap) code(name, qualname, file string, first int) (addr, instr uint64) {
	c := &h.l.Code
	addr = h.object(SymCodeType, 4096)
	h.word(addr, c.Name, h.str(name))
	if c.Qualname.Present() {
		h.word(addr, c.Qualname, h.str(qualname))
	}
	h.word(addr, c.Filename, h.str(file))
	h.int32(addr, c.FirstLineno, int32(first))
	table := c.Linetable
	if !table.Present() {
		table = c.Lnotab
	}
	h.word(addr, table, h.bytesObject(h.lineTwoOn()))
	if c.CodeAdaptive.Present() {
		instr = addr + uint64(c.CodeAdaptive)
	}
	return addr, instr
}

// pyFrameSpec is one frame the heap's thread runs.
type pyFrameSpec struct {
	name, qualname string
	first          int
	entry          bool // the first frame of its evaluator call
}

// frames lays out a chain of frames (the innermost first), each at the
// instruction 4 bytes into its code, and returns the innermost's address.
// From 3.12 the evaluator's shim frame sits beneath each entry frame.
func (h *heap) frames(specs []pyFrameSpec) uint64 {
	l := &h.l
	type node struct {
		spec *pyFrameSpec // nil: a shim
	}
	var nodes []node
	for i := range specs {
		nodes = append(nodes, node{&specs[i]})
		if specs[i].entry && l.Frame.OwnerCStack >= 0 {
			nodes = append(nodes, node{nil})
		}
	}
	var prev uint64
	for i := len(nodes) - 1; i >= 0; i-- {
		f := h.alloc(512)
		s := nodes[i].spec
		if s == nil {
			h.word(f, l.Frame.Previous, prev)
			h.at(f, l.Frame.Owner)[0] = byte(l.Frame.OwnerCStack)
			prev = f
			continue
		}
		code, instr := h.code(s.name, s.qualname, "app.py", s.first)
		if !l.Frame.Code.Present() { // a PyFrameObject
			h.word(f, l.FrameObject.Back, prev)
			h.word(f, l.FrameObject.Code, code)
			lasti := int32(4)
			if l.Version.Minor == 10 {
				lasti = 2 // 3.10 counts code units
			}
			h.int32(f, l.FrameObject.Lasti, lasti)
			prev = f
			continue
		}
		h.word(f, l.Frame.Code, code)
		h.word(f, l.Frame.Previous, prev)
		if l.Frame.PrevInstr.Present() {
			h.word(f, l.Frame.PrevInstr, instr+4)
		} else {
			h.word(f, l.Frame.InstrPtr, instr+4)
		}
		h.at(f, l.Frame.Owner)[0] = byte(l.Frame.OwnerThread)
		if l.Frame.IsEntry.Present() && s.entry {
			h.at(f, l.Frame.IsEntry)[0] = 1
		}
		prev = f
	}
	return prev
}

// exception is an exception object of a type named typeName with one
// str argument, msg.
func (h *heap) exception(typeName, msg string) uint64 {
	typ := h.alloc(512)
	name := h.alloc(len(typeName) + 1)
	copy(h.mem.buf[name-h.mem.base:], typeName)
	h.word(typ, h.l.Type.Name, name)
	e := h.alloc(256)
	h.word(e, h.l.Object.Type, typ)
	args := h.object(SymTupleType, 256)
	h.word(args, h.l.Tuple.Size, 1)
	h.word(args, h.l.Tuple.Item, h.str(msg))
	h.word(e, h.l.Exception.Args, args)
	return e
}

// thread is a thread state running frames (0: none), handling exc (0:
// nothing), after next in the interpreter's list.
func (h *heap) thread(next, frame, exc uint64, tid, pthread uint64) uint64 {
	l := &h.l
	ts := h.alloc(1024)
	h.word(ts, l.Thread.Next, next)
	h.word(ts, l.Thread.ThreadID, pthread)
	if l.Thread.NativeThreadID.Present() {
		h.word(ts, l.Thread.NativeThreadID, tid)
	}
	switch {
	case l.Thread.CurrentFrame.Present():
		h.word(ts, l.Thread.CurrentFrame, frame)
	case l.Thread.CFrame.Present():
		cf := h.alloc(64)
		h.word(cf, l.CFrame.CurrentFrame, frame)
		h.word(ts, l.Thread.CFrame, cf)
	default:
		h.word(ts, l.Thread.Frame, frame)
	}
	if exc != 0 {
		item := h.alloc(64)
		h.word(item, l.ErrStackItem.ExcValue, exc)
		h.word(ts, l.Thread.ExcInfo, item)
	}
	return ts
}

// interpreter makes the runtime's one interpreter, whose threads start
// at head, with the GIL held by holder (0: free).
func (h *heap) interpreter(head, holder uint64) {
	l := &h.l
	interp := h.alloc(h.size(l.Interp.Size))
	h.word(interp, l.Interp.ThreadsHead, head)
	runtime := h.syms[SymRuntime]
	h.word(runtime, l.Runtime.InterpretersHead, interp)
	gil := runtime + uint64(l.Runtime.GIL)
	if !l.Runtime.GIL.Present() {
		gil = h.alloc(256)
		h.word(interp, l.Interp.GIL, gil)
	}
	if holder != 0 {
		h.int32(gil, l.GIL.Locked, 1)
		h.word(gil, l.GIL.LastHolder, holder)
	}
}

// reader reads the heap with its layout.
func (h *heap) reader() *Reader {
	f, _ := linetable.FormatOf(h.l.Version)
	return &Reader{b: Binary{Symbols: h.syms, PtrSize: 8, Order: binary.LittleEndian}, layout: &h.l, format: f, version: h.l.Version.String()}
}

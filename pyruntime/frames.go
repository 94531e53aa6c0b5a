package pyruntime

import (
	"fmt"

	"github.com/coreunwind/coreunwind/pyruntime/linetable"
)

// Frame is one Python frame.
type Frame struct {
	// Name is the code object's co_name (what faulthandler prints),
	// Qualname its co_qualname ("Class.method"; co_name before 3.11);
	// File its co_filename.
	Name, Qualname, File string
	// FirstLine is co_firstlineno; Line the line executing, -1 when the
	// line table gives none.
	FirstLine, Line int
	// Entry marks the first frame a call of the C evaluator
	// (EvalFunction) ran: the oldest of those that native frame runs.
	// Before 3.11 every frame is its own call's.
	Entry bool
	// Error says why the frame's code could not be read ("" when it
	// was): the frame is there, without its names.
	Error string
}

// frames reads the thread's chain of frames from the innermost, at addr
// (a _PyInterpreterFrame from 3.11, a PyFrameObject before); err says
// why it stopped before its end.
func (r *Reader) frames(mem Memory, cache codeCache, budget *int, addr uint64) ([]Frame, error) {
	var out []Frame
	seen := map[uint64]bool{}
	for addr != 0 {
		if len(out) >= MaxFrames {
			return out, fmt.Errorf("more than %d Python frames", MaxFrames)
		}
		if *budget <= 0 {
			return out, fmt.Errorf("too many Python frames in all threads")
		}
		*budget--
		if seen[addr] {
			return out, fmt.Errorf("python frame %#x: the chain loops", addr)
		}
		seen[addr] = true
		f, prev, err := r.frame(mem, cache, addr)
		if err != nil {
			return out, err
		}
		if f != nil {
			out = append(out, *f)
		} else if len(out) > 0 {
			// A shim: the frame before it was its evaluator call's first.
			out[len(out)-1].Entry = true
		}
		addr = prev
	}
	if len(out) > 0 {
		out[len(out)-1].Entry = true
	}
	return out, nil
}

// frame reads the frame at addr and the address of the one before it;
// f is nil for an entry shim (3.12+), which runs no Python code.
func (r *Reader) frame(mem Memory, cache codeCache, addr uint64) (f *Frame, prev uint64, err error) {
	fail := func(err error) (*Frame, uint64, error) {
		return nil, 0, fmt.Errorf("python frame %#x: %w", addr, err)
	}
	l := r.layout
	if !l.Frame.Code.Present() {
		return r.frameObject(mem, cache, addr)
	}
	if prev, err = r.field(mem, addr, l.Frame.Previous); err != nil {
		return fail(err)
	}
	var b [1]byte
	if err := mem.ReadMem(addr+uint64(l.Frame.Owner), b[:]); err != nil {
		return fail(err)
	}
	if l.Frame.OwnerCStack >= 0 && int64(b[0]) == l.Frame.OwnerCStack {
		return nil, prev, nil
	}
	f = &Frame{Line: linetable.NoLine}
	if l.Frame.IsEntry.Present() { // 3.11; later, a shim beneath says so
		if err := mem.ReadMem(addr+uint64(l.Frame.IsEntry), b[:]); err != nil {
			return fail(err)
		}
		f.Entry = b[0] != 0
	}
	codeAddr, err := r.field(mem, addr, l.Frame.Code)
	if err != nil {
		return fail(err)
	}
	c, err := r.code(mem, cache, codeAddr)
	if err != nil {
		f.Error = err.Error()
		return f, prev, nil
	}
	f.setCode(c)
	// prev_instr (3.11, 3.12) or instr_ptr (3.13+): either way the
	// offset from the first code unit is what PyCode_Addr2Line takes.
	instrAt := l.Frame.PrevInstr
	if !instrAt.Present() {
		instrAt = l.Frame.InstrPtr
	}
	if instr, err := r.field(mem, addr, instrAt); err == nil {
		f.Line = linetable.Line(r.format, c.linetable, c.firstLine, offsetIn(instr, c.instrStart))
	}
	return f, prev, nil
}

// frameObject reads the PyFrameObject at addr (before 3.11): each runs
// in a call of the evaluator of its own.
func (r *Reader) frameObject(mem Memory, cache codeCache, addr uint64) (f *Frame, back uint64, err error) {
	fail := func(err error) (*Frame, uint64, error) {
		return nil, 0, fmt.Errorf("python frame %#x: %w", addr, err)
	}
	l := &r.layout.FrameObject
	if back, err = r.field(mem, addr, l.Back); err != nil {
		return fail(err)
	}
	f = &Frame{Line: linetable.NoLine, Entry: true}
	codeAddr, err := r.field(mem, addr, l.Code)
	if err != nil {
		return fail(err)
	}
	c, err := r.code(mem, cache, codeAddr)
	if err != nil {
		f.Error = err.Error()
		return f, back, nil
	}
	f.setCode(c)
	if lasti, err := r.int32At(mem, addr+uint64(l.Lasti)); err == nil {
		addr := int(lasti)
		if r.format == linetable.Linetable310 {
			addr *= codeUnit // 3.10's f_lasti counts code units
		}
		f.Line = linetable.Line(r.format, c.linetable, c.firstLine, addr)
	}
	return f, back, nil
}

// codeUnit is sizeof(_Py_CODEUNIT).
const codeUnit = 2

func (f *Frame) setCode(c *code) {
	f.Name, f.Qualname, f.File, f.FirstLine = c.name, c.qualname, c.file, c.firstLine
}

// offsetIn is the byte offset of the instruction pointer instr from the
// first code unit at start, negative before it, and past any line table
// when it is far off.
func offsetIn(instr, start uint64) int {
	if instr < start {
		return -codeUnit
	}
	return int(min(instr-start, 1<<30))
}

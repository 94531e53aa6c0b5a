package pyruntime

import (
	"fmt"
)

// Frame is one Python frame.
type Frame struct {
	// Name is the code object's co_name (what faulthandler prints),
	// Qualname its co_qualname ("Class.method"); File its co_filename.
	Name, Qualname, File string
	// FirstLine is co_firstlineno; Line the line executing, -1 when the
	// line table gives none.
	FirstLine, Line int
	// Entry marks the first frame a call of the C evaluator
	// (EvalFunction) ran: the oldest of those that native frame runs.
	Entry bool
	// Error says why the frame's code could not be read ("" when it
	// was): the frame is there, without its names.
	Error string
}

// frame owners (_PyInterpreterFrame.owner).
const ownedByCStack = 3 // 3.12's shim frame, the entry of an evaluator call

// frames reads the chain of interpreter frames from the innermost, at
// addr; err says why it stopped before its end.
func (r *Reader) frames(mem Memory, cache codeCache, addr uint64) ([]Frame, error) {
	var out []Frame
	seen := map[uint64]bool{}
	for addr != 0 {
		if len(out) >= MaxFrames {
			return out, fmt.Errorf("more than %d Python frames", MaxFrames)
		}
		if seen[addr] {
			return out, fmt.Errorf("Python frame %#x: the chain loops", addr)
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

// frame reads the interpreter frame at addr and the address of the one
// before it; f is nil for a shim frame, which runs no code.
func (r *Reader) frame(mem Memory, cache codeCache, addr uint64) (f *Frame, prev uint64, err error) {
	l := r.layout
	prev, err = r.field(mem, addr, l.FramePrevious)
	if err != nil {
		return nil, 0, fmt.Errorf("Python frame %#x: %w", addr, err)
	}
	var b [1]byte
	if err := mem.ReadMem(addr+uint64(l.FrameOwner), b[:]); err != nil {
		return nil, 0, fmt.Errorf("Python frame %#x: %w", addr, err)
	}
	if b[0] == ownedByCStack && l.FrameIsEntry < 0 {
		return nil, prev, nil
	}
	f = &Frame{Line: -1}
	if l.FrameIsEntry >= 0 {
		if err := mem.ReadMem(addr+uint64(l.FrameIsEntry), b[:]); err != nil {
			return nil, 0, fmt.Errorf("Python frame %#x: %w", addr, err)
		}
		f.Entry = b[0] != 0
	}
	codeAddr, err := r.field(mem, addr, l.FrameCode)
	if err != nil {
		return nil, 0, fmt.Errorf("Python frame %#x: %w", addr, err)
	}
	c, err := r.code(mem, cache, codeAddr)
	if err != nil {
		f.Error = err.Error()
		return f, prev, nil
	}
	f.Name, f.Qualname, f.File, f.FirstLine = c.name, c.qualname, c.file, c.firstLine
	if instr, err := r.field(mem, addr, l.FrameInstr); err == nil {
		f.Line = lineAt(c.linetable, c.firstLine, r.lasti(instr, c))
	}
	return f, prev, nil
}

// lasti is the byte offset in the code's bytecode of the instruction
// the frame last started (prev_instr), as _PyInterpreterFrame_LASTI
// times sizeof(_Py_CODEUNIT); -1 before the first.
func (r *Reader) lasti(instr uint64, c *code) int {
	if instr < c.instrStart {
		return -codeUnit
	}
	d := instr - c.instrStart
	if d > 1<<30 {
		return 1 << 30 // past any table: no line
	}
	return int(d) / codeUnit * codeUnit
}

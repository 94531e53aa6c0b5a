package gopclntab

import "encoding/binary"

// PCDATA and FUNCDATA table indexes (internal/abi/symtab.go), the same in
// every release this package reads.
const (
	pcdataInlTreeIndex = 2
	funcdataInlTree    = 3
)

// pcvalueRuns decodes the pc-value table at off in pctab for the
// function [entry, end) and calls yield with each run: the value over
// [pc, next). The table is a sequence of (value delta, pc delta) pairs,
// a zigzag varint and a uvarint scaled by the quantum, from value -1 at
// entry, ended by a zero value delta. It stops when yield returns false
// or the table ends or is malformed.
//
// The compiler writes a pair only where the pc advances, so a step
// without one is malformed: the steps are bounded by the function's
// size, not only by the table's bytes.
func (t *Table) pcvalueRuns(off uint32, entry, end uint64, yield func(val int64, pc, next uint64) bool) {
	if off == 0 || uint64(off) >= uint64(len(t.pctab)) || end < entry {
		return
	}
	p := t.pctab[off:]
	val := int64(-1)
	pc := entry
	for first := true; ; first = false {
		uv, n := binary.Uvarint(p)
		if n <= 0 || (uv == 0 && !first) {
			return
		}
		p = p[n:]
		val += int64(-(uv & 1) ^ (uv >> 1))
		d, n := binary.Uvarint(p)
		if n <= 0 || d == 0 || d > (end-pc)/t.quantum {
			return // no advance, or past the function's end
		}
		p = p[n:]
		next := pc + d*t.quantum
		if !yield(val, pc, next) {
			return
		}
		pc = next
	}
}

// pcvalue is the value of the pc-value table at off at pc, ok false when
// the table has none there.
func (t *Table) pcvalue(off uint32, entry, end, pc uint64) (v int32, ok bool) {
	t.pcvalueRuns(off, entry, end, func(val int64, lo, next uint64) bool {
		if pc >= next {
			return true
		}
		v, ok = int32(val), pc >= lo && val == int64(int32(val))
		return false
	})
	return v, ok
}

// SPDelta is how far below its value at the function's entry (where the
// return address was just pushed, or the link register set) the stack
// pointer is when the function executes pc: the runtime's pcsp table,
// from which it finds the caller's frame. ok is false when the table has
// no value there.
func (f *Func) SPDelta(pc uint64) (int64, bool) {
	v, ok := f.t.pcvalue(f.t.order.Uint32(f.rec[funcPCSP:]), f.Entry, f.End, pc)
	return int64(v), ok
}

// PCData is the value of the function's PCDATA table i at pc, ok false
// when it has no such table or no value there.
func (f *Func) PCData(i int, pc uint64) (int32, bool) {
	n := int(f.t.order.Uint32(f.rec[funcNPCData:]))
	if i < 0 || i >= n {
		return 0, false
	}
	return f.t.pcvalue(f.t.order.Uint32(f.rec[funcSize+4*i:]), f.Entry, f.End, pc)
}

// funcdata is the offset from moduledata.gofunc of the function's
// FUNCDATA i, ok false when it has none.
func (f *Func) funcdata(i int) (uint32, bool) {
	npcdata := int(f.t.order.Uint32(f.rec[funcNPCData:]))
	if i < 0 || i >= int(f.rec[funcNFuncData]) {
		return 0, false
	}
	off := f.t.order.Uint32(f.rec[funcSize+4*(npcdata+i):])
	return off, off != ^uint32(0)
}

// FileLine is the source file and line of the instruction at pc, that of
// the innermost function inlined there; ok is false where the table has
// none (the padding after a function's last instruction) or names a
// file it lacks.
func (f *Func) FileLine(pc uint64) (file string, line int, ok bool) {
	fileno, ok1 := f.t.pcvalue(f.t.order.Uint32(f.rec[funcPCFile:]), f.Entry, f.End, pc)
	ln, ok2 := f.t.pcvalue(f.t.order.Uint32(f.rec[funcPCLn:]), f.Entry, f.End, pc)
	if !ok1 || !ok2 {
		return "", 0, false
	}
	file, ok = f.t.fileName(f.t.order.Uint32(f.rec[funcCUOffset:]), fileno)
	return file, int(ln), ok
}

// fileName is file fileno of the compilation unit at cu in cutab.
func (t *Table) fileName(cu uint32, fileno int32) (string, bool) {
	if fileno < 0 {
		return "", false
	}
	i := uint64(cu) + uint64(fileno)
	if i >= uint64(len(t.cutab))/4 {
		return "", false
	}
	return cString(t.filetab, int64(t.order.Uint32(t.cutab[4*i:])))
}

package gopclntab

import "encoding/binary"

// PCDATA and FUNCDATA table indexes (internal/abi/symtab.go), the same in
// every release this package reads.
const (
	pcdataInlTreeIndex = 2
	funcdataInlTree    = 3
)

// pcvalue decodes the pc-value table at off in pctab for the function
// starting at entry and returns the value at pc. The table is a sequence
// of (value delta, pc delta) pairs, a zigzag varint and a uvarint scaled
// by the quantum, from value -1 at entry, ended by a zero value delta.
// ok is false when the table has no value for pc or is malformed.
//
// The compiler writes a pair only where the pc advances, so a step
// without one is malformed: the steps are bounded by the function's
// size (end), not only by the table's bytes.
func (t *Table) pcvalue(off uint32, entry, end, pc uint64) (int32, bool) {
	if off == 0 || uint64(off) >= uint64(len(t.pctab)) {
		return 0, false
	}
	p := t.pctab[off:]
	val := int64(-1)
	cur := entry
	for first := true; ; first = false {
		// Each step consumes at least two bytes: the loop ends with the
		// table.
		uv, n := binary.Uvarint(p)
		if n <= 0 || (uv == 0 && !first) {
			return 0, false
		}
		p = p[n:]
		val += int64(-(uv & 1) ^ (uv >> 1))
		d, n := binary.Uvarint(p)
		if n <= 0 {
			return 0, false
		}
		p = p[n:]
		if d == 0 || d > (end-cur)/t.quantum {
			return 0, false // no advance, or past the function's end
		}
		next := cur + d*t.quantum
		cur = next
		if pc < cur {
			if val != int64(int32(val)) {
				return 0, false
			}
			return int32(val), true
		}
	}
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

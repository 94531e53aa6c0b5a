package elfx

import (
	"debug/dwarf"
	"fmt"
	"io"
)

// lineRows reads a line program's rows one by one with lineProgram or,
// where it refuses the program, debug/dwarf's LineReader:
// splitSequences and rowAt read either the same way. (A struct, not an
// interface: a call per row through one cost a tenth of a decode.)
type lineRows struct {
	p  *lineProgram // nil: lr reads
	s  lineState
	lr *dwarf.LineReader
	le dwarf.LineEntry
}

// next decodes the next row: its address and whether it ends a
// sequence; io.EOF after the last.
func (r *lineRows) next() (addr uint64, end bool, err error) {
	if r.p != nil {
		ok, err := r.p.next(&r.s)
		if err != nil {
			return 0, false, err
		}
		if !ok {
			return 0, false, io.EOF
		}
		return r.s.addr, r.s.end, nil
	}
	if err := r.lr.Next(&r.le); err == io.EOF {
		return 0, false, err
	} else if err != nil {
		return 0, false, fmt.Errorf("line table: %w", err)
	}
	return r.le.Address, r.le.EndSequence, nil
}

// row is the last row's file (an index in the unit's file table, or
// the reader's entry), line and column.
func (r *lineRows) row() (file lineFileRef, line, col int) {
	if r.p != nil {
		return lineFileRef{idx: r.s.file}, r.s.line, r.s.col
	}
	return lineFileRef{f: r.le.File, idx: -1}, r.le.Line, r.le.Column
}

// mark is where the next row is decoded from.
func (r *lineRows) mark() lineMark {
	if r.p != nil {
		return lineMark{at: r.s}
	}
	pos := r.lr.Tell()
	return lineMark{pos: &pos}
}

// lineFileRef is a row's file: an index in the unit's file table, or
// (idx -1) the LineReader's entry.
type lineFileRef struct {
	f   *dwarf.LineFile
	idx int
}

// fileAt is a row's file entry: LineReader's own, or the file table's
// entry at the index lineProgram decoded (nil out of the table, as
// LineReader gives).
func (cu *cuIndex) fileAt(ref lineFileRef) *dwarf.LineFile {
	if ref.idx < 0 {
		return ref.f
	}
	if ref.idx < len(cu.fileTab) {
		return cu.fileTab[ref.idx]
	}
	return nil
}

// lineProgram is the decoder of the unit's line program over the
// section's bytes, nil where they are not at hand (only a lazy index
// keeps .debug_line's bytes) or its header is refused.
func (cu *cuIndex) lineProgram() *lineProgram {
	if cu.lazy == nil || cu.entry == nil || cu.header.addrSize == 0 {
		return nil
	}
	off, ok := cu.entry.Val(dwarf.AttrStmtList).(int64)
	if !ok || off < 0 {
		return nil
	}
	p, err := newLineProgram(cu.lazy.line.buf, uint64(off), cu.lazy.order, int(cu.header.addrSize))
	if err != nil {
		return nil
	}
	return p
}

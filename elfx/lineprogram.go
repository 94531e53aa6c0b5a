package elfx

import (
	"encoding/binary"
	"errors"
	"sync"
)

// lineProgram decodes a unit's line program opcodes straight from
// .debug_line's bytes: debug/dwarf's LineReader copies a whole
// LineEntry per row and checks every byte it reads, which made line
// programs 38% of a cold report on a dwz'd LTO program. Its rows are
// LineReader's rows (address, file index, line, column, end of
// sequence); anything it does not decode the way LineReader does
// (DW_LNE_define_file, malformed opcodes) it refuses with
// errLineRefused, for the caller to read the unit with LineReader. The
// header's directory and file tables are not read here: LineReader
// reads them once, and a row's file index points into its table.
type lineProgram struct {
	ops        []byte // the opcodes: from the header's end to the unit's end
	order      binary.ByteOrder
	addrSize   int
	minInst    int
	maxOps     int
	lineBase   int
	lineRange  int
	opcodeBase int
	opLens     []byte // standard opcodes' operand counts, opLens[op-1]
	special    *specialOps
}

// specialOps are the special opcodes' operation and line advances,
// worked out once: two divisions per row were a third of a decode.
// Units of one compiler share them (specialTables).
type specialOps [256]struct {
	ops  uint8
	line int16
}

// specialTables are the specialOps made, by opcode_base, line_base
// and line_range.
var specialTables sync.Map // [3]int -> *specialOps

// specialOpsFor returns the specialOps of a header's opcode_base,
// line_base and line_range (lineRange > 0).
func specialOpsFor(opcodeBase, lineBase, lineRange int) *specialOps {
	key := [3]int{opcodeBase, lineBase, lineRange}
	if t, ok := specialTables.Load(key); ok {
		return t.(*specialOps)
	}
	t := new(specialOps)
	for op := opcodeBase; op < 256; op++ {
		adj := op - opcodeBase
		t[op].ops = uint8(adj / lineRange)
		t[op].line = int16(lineBase + adj%lineRange)
	}
	v, _ := specialTables.LoadOrStore(key, t)
	return v.(*specialOps)
}

// errLineRefused: the program holds what lineProgram leaves to
// debug/dwarf's LineReader.
var errLineRefused = errors.New("line program left to debug/dwarf")

// lineState is the state machine's registers a row needs, and where the
// next opcode is: a copy of it decodes on from there. After a row, the
// registers are the row's.
type lineState struct {
	pos     int
	addr    uint64
	opIndex int
	file    int
	line    int
	col     int
	end     bool // the row ends a sequence: the registers reset before the next
}

// lineStart is the registers at a sequence's start (DWARF 4 6.2.2).
func lineStart(pos int) lineState { return lineState{pos: pos, file: 1, line: 1} }

// newLineProgram reads the header of the line program at off in sec.
// cuAddrSize is the unit's address size, which DWARF 2-4 headers leave
// out (0 when unknown: refused for those).
func newLineProgram(sec []byte, off uint64, order binary.ByteOrder, cuAddrSize int) (*lineProgram, error) {
	if off > uint64(len(sec)) {
		return nil, errLineRefused
	}
	b := sec[off:]
	r := byteReader{b: b, order: order}
	length, dwarf64 := uint64(r.u32()), false
	if length == 0xffffffff {
		length, dwarf64 = r.u64(), true
	}
	if r.bad || length > uint64(len(b)-r.p) {
		return nil, errLineRefused
	}
	end := r.p + int(length)
	r.b = b[:end] // the header's fields lie inside the unit
	version := r.u16()
	p := &lineProgram{order: order, addrSize: cuAddrSize, maxOps: 1}
	if version >= 5 {
		p.addrSize = int(r.u8())
		r.u8() // segment selector size
	}
	var hdrLen uint64
	if dwarf64 {
		hdrLen = r.u64()
	} else {
		hdrLen = uint64(r.u32())
	}
	if r.bad || version < 2 || version > 5 || hdrLen > uint64(end-r.p) {
		return nil, errLineRefused
	}
	progStart := r.p + int(hdrLen)
	p.minInst = int(r.u8())
	if version >= 4 {
		p.maxOps = int(r.u8())
	}
	r.u8() // default_is_stmt
	p.lineBase = int(int8(r.u8()))
	p.lineRange = int(r.u8())
	p.opcodeBase = int(r.u8())
	if r.bad || p.opcodeBase < 1 || r.p+p.opcodeBase-1 > progStart {
		return nil, errLineRefused
	}
	p.opLens = b[r.p : r.p+p.opcodeBase-1]
	if p.maxOps == 0 || p.lineRange == 0 || p.addrSize != 1 && p.addrSize != 2 && p.addrSize != 4 && p.addrSize != 8 {
		return nil, errLineRefused
	}
	for op, n := range knownLineOpLens {
		if op < p.opcodeBase && int(p.opLens[op-1]) != n {
			return nil, errLineRefused
		}
	}
	p.ops = b[progStart:end]
	p.special = specialOpsFor(p.opcodeBase, p.lineBase, p.lineRange)
	return p, nil
}

// knownLineOpLens are the standard opcodes' operand counts DWARF fixes
// (LineReader refuses headers that differ).
var knownLineOpLens = map[int]int{1: 0, 2: 1, 3: 1, 4: 1, 5: 1, 6: 0, 7: 0, 8: 0, 9: 1, 10: 0, 11: 0, 12: 1}

// next runs opcodes from s up to the next row, leaving the row's
// registers in s (s.pos past it); ok is false at the program's end.
//
// The position is worked on in a local and stored back once: kept
// in s, its address passed to the LEB128 reader, it was a load and a
// store per opcode, and gen-lto's programs take 3-4 standard opcodes a
// row.
func (p *lineProgram) next(s *lineState) (ok bool, err error) {
	if s.end {
		*s = lineStart(s.pos)
	}
	ops, pos := p.ops, s.pos
	for pos < len(ops) {
		op := int(ops[pos])
		pos++
		if op >= p.opcodeBase {
			sp := &p.special[op]
			p.advance(s, int(sp.ops))
			s.line += int(sp.line)
			s.pos = pos
			return true, nil
		}
		var n uint64
		switch op {
		case 0:
			if n, pos, ok = ulebAt(ops, pos); !ok || n == 0 || n > uint64(len(ops)-pos) {
				s.pos = pos
				return false, errLineRefused
			}
			opEnd := pos + int(n)
			switch ops[pos] {
			case 1: // DW_LNE_end_sequence
				if n != 1 {
					s.pos = pos
					return false, errLineRefused
				}
				pos, s.end = opEnd, true
				s.pos = pos
				return true, nil
			case 2: // DW_LNE_set_address
				if int(n) != 1+p.addrSize {
					s.pos = pos
					return false, errLineRefused
				}
				a := ops[pos+1 : opEnd]
				switch p.addrSize {
				case 1:
					s.addr = uint64(a[0])
				case 2:
					s.addr = uint64(p.order.Uint16(a))
				case 4:
					s.addr = uint64(p.order.Uint32(a))
				case 8:
					s.addr = p.order.Uint64(a)
				}
			case 3: // DW_LNE_define_file: changes the file table
				s.pos = pos
				return false, errLineRefused
			case 4: // DW_LNE_set_discriminator
				if _, q, ok := ulebAt(ops[:opEnd], pos+1); !ok || q != opEnd {
					s.pos = pos
					return false, errLineRefused
				}
			}
			pos = opEnd
		case 1: // DW_LNS_copy
			s.pos = pos
			return true, nil
		case 2: // DW_LNS_advance_pc
			if n, pos, ok = ulebAt(ops, pos); !ok || n > 1<<31 {
				s.pos = pos
				return false, errLineRefused
			}
			p.advance(s, int(n))
		case 3: // DW_LNS_advance_line
			var d int64
			if d, pos, ok = slebAt(ops, pos); !ok || d > 1<<31 || d < -1<<31 {
				s.pos = pos
				return false, errLineRefused
			}
			s.line += int(d)
		case 4: // DW_LNS_set_file
			if n, pos, ok = ulebAt(ops, pos); !ok || n > 1<<31 {
				s.pos = pos
				return false, errLineRefused
			}
			s.file = int(n)
		case 5: // DW_LNS_set_column
			if n, pos, ok = ulebAt(ops, pos); !ok || n > 1<<31 {
				s.pos = pos
				return false, errLineRefused
			}
			s.col = int(n)
		case 8: // DW_LNS_const_add_pc
			p.advance(s, (255-p.opcodeBase)/p.lineRange)
		case 9: // DW_LNS_fixed_advance_pc (LineReader keeps op_index)
			if len(ops)-pos < 2 {
				s.pos = pos
				return false, errLineRefused
			}
			s.addr += uint64(p.order.Uint16(ops[pos:]))
			pos += 2
		default: // no operands that matter (negate_stmt, set_isa, ...)
			for range p.opLens[op-1] {
				if _, pos, ok = ulebAt(ops, pos); !ok {
					s.pos = pos
					return false, errLineRefused
				}
			}
		}
	}
	s.pos = pos
	return false, nil
}

// advance moves the address by n operations (DWARF 4 6.2.5.1), as
// LineReader.advancePC does.
func (p *lineProgram) advance(s *lineState, n int) {
	if p.maxOps == 1 {
		s.addr += uint64(p.minInst * n)
		return
	}
	i := s.opIndex + n
	s.addr += uint64(p.minInst * (i / p.maxOps))
	s.opIndex = i % p.maxOps
}

// ulebAt is readULEB at pos in b (pos <= len(b)), returning the
// position after the number: a value, not a pointer, so that the
// caller's stays in a register. False when b ends inside it.
func ulebAt(b []byte, pos int) (uint64, int, bool) {
	v, n := readULEB(b[pos:])
	return v, pos + n, n > 0
}

// slebAt is ulebAt for readSLEB.
func slebAt(b []byte, pos int) (int64, int, bool) {
	v, n := readSLEB(b[pos:])
	return v, pos + n, n > 0
}

// byteReader reads a header's fixed-size fields; bad is set (and zeros
// returned) once one runs off b.
type byteReader struct {
	b     []byte
	p     int
	order binary.ByteOrder
	bad   bool
}

func (r *byteReader) take(n int) []byte {
	if r.bad || len(r.b)-r.p < n {
		r.bad = true
		return make([]byte, 8)
	}
	r.p += n
	return r.b[r.p-n : r.p]
}

func (r *byteReader) u8() uint8   { return r.take(1)[0] }
func (r *byteReader) u16() uint16 { return r.order.Uint16(r.take(2)) }
func (r *byteReader) u32() uint32 { return r.order.Uint32(r.take(4)) }
func (r *byteReader) u64() uint64 { return r.order.Uint64(r.take(8)) }

// Package linetable decodes the line tables of CPython code objects: which
// source line the instruction at a bytecode offset belongs to, computed as
// each version's PyCode_Addr2Line does. The three formats are pure
// functions of the table's bytes; reading the table out of a core is
// package pyruntime's job, and where it sits package pylayout's.
package linetable

import (
	"fmt"
	"iter"
	"math"

	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
)

// Format is a line table encoding.
type Format uint8

const (
	// Lnotab is co_lnotab (3.6-3.9): pairs of an unsigned bytecode
	// offset increment and a signed line increment.
	Lnotab Format = iota + 1
	// Linetable310 is 3.10's co_linetable: pairs of an unsigned bytecode
	// length and a signed line increment, -128 meaning "no line".
	Linetable310
	// Locations is co_linetable from 3.11 (PEP 657, CPython's
	// Objects/locations.md): variable-length entries, each covering 1-8
	// code units, carrying line (and column) deltas.
	Locations
)

func (f Format) String() string {
	switch f {
	case Lnotab:
		return "co_lnotab"
	case Linetable310:
		return "co_linetable (3.10)"
	case Locations:
		return "location table (3.11+)"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// FormatOf is the format of CPython v's line tables; false before 3.6,
// whose co_lnotab had unsigned line increments.
func FormatOf(v pylayout.Version) (Format, bool) {
	switch {
	case v.Major != 3 || v.Minor < 6:
		return 0, false
	case v.Minor < 10:
		return Lnotab, true
	case v.Minor == 10:
		return Linetable310, true
	}
	return Locations, true
}

// NoLine is the line of instructions the table gives none (compiler-made
// code, 3.10+) or that lie past its end.
const NoLine = -1

// Range says that the instructions at byte offsets [Start, End) belong to
// Line (NoLine for none). Ranges come in table order; they may be empty.
type Range struct {
	Start, End int
	Line       int
}

// Ranges decodes table, the table of a code object whose co_firstlineno
// is firstLine, into its address ranges. It reads each byte at most a few
// times and never more than len(table) entries: any bytes are safe.
func Ranges(f Format, table []byte, firstLine int) iter.Seq[Range] {
	switch f {
	case Lnotab:
		return lnotabRanges(table, firstLine)
	case Linetable310:
		return linetable310Ranges(table, firstLine)
	case Locations:
		return locationRanges(table, firstLine)
	}
	return func(func(Range) bool) {}
}

// Line is the line of the instruction at byte offset addr, as
// PyCode_Addr2Line computes it: firstLine for a negative addr (a frame
// that has not started), NoLine where the table says none.
//
// addr counts bytes from the first instruction: f_lasti up to 3.9; f_lasti
// * 2 in 3.10 (whose f_lasti counts code units); from 3.11 prev_instr
// (3.11-3.12) or instr_ptr (3.13+) minus the address of co_code_adaptive.
func Line(f Format, table []byte, firstLine, addr int) int {
	if addr < 0 {
		return firstLine
	}
	for r := range Ranges(f, table, firstLine) {
		if r.Start <= addr && addr < r.End {
			return r.Line
		}
	}
	return NoLine
}

// lnotabRanges: each pair moves the address, then the line (CPython
// 3.6-3.9's PyCode_Addr2Line: the line of an address is the line after
// every pair whose address it reached). The last range never ends.
func lnotabRanges(table []byte, firstLine int) iter.Seq[Range] {
	return func(yield func(Range) bool) {
		start, line := 0, firstLine
		for i := 0; i+1 < len(table); i += 2 {
			if d := int(table[i]); d != 0 {
				if !yield(Range{start, start + d, line}) {
					return
				}
				start += d
			}
			line += int(int8(table[i+1]))
		}
		yield(Range{start, math.MaxInt, line})
	}
}

// linetable310Ranges: each pair is one range, its length then its line
// increment; -128 says the range has no line and leaves the line alone.
func linetable310Ranges(table []byte, firstLine int) iter.Seq[Range] {
	return func(yield func(Range) bool) {
		end, line := 0, firstLine
		for i := 0; i+1 < len(table); i += 2 {
			start := end
			end += int(table[i])
			r := Range{start, end, NoLine}
			if d := int8(table[i+1]); d != -128 {
				line += int(d)
				r.Line = line
			}
			if !yield(r) {
				return
			}
		}
	}
}

// Location table entry codes (the bits 3-6 of an entry's first byte).
const (
	locOneLine0 = 10 // 10, 11, 12: the line moves by 0, 1, 2; columns follow
	locOneLine2 = 12
	locNoColumn = 13 // a signed varint line delta
	locLong     = 14 // a signed varint line delta, then end line and columns
	locNone     = 15 // no location
)

// codeUnit is sizeof(_Py_CODEUNIT): the location table counts code units.
const codeUnit = 2

// locationRanges: each entry starts with a byte whose bit 7 is set and
// covers (bits 0-2) + 1 code units; its code says how the line moves.
// Entries are found as CPython's advance() finds them: the next byte with
// bit 7 set.
func locationRanges(table []byte, firstLine int) iter.Seq[Range] {
	return func(yield func(Range) bool) {
		end, line := 0, firstLine
		for i := 0; i < len(table); {
			b := table[i]
			code := int(b >> 3 & 15)
			switch {
			case code == locNoColumn || code == locLong:
				line += signedVarint(table[i+1:])
			case code >= locOneLine0 && code <= locOneLine2:
				line += code - locOneLine0
			}
			start := end
			end += (int(b&7) + 1) * codeUnit
			r := Range{start, end, line}
			if code == locNone {
				r.Line = NoLine
			}
			if !yield(r) {
				return
			}
			for i++; i < len(table) && table[i]&0x80 == 0; i++ {
			}
		}
	}
}

// signedVarint reads the location table's signed varint at the start of
// b: unsigned varint chunks of 6 bits, bit 6 set where another follows,
// the sign in the lowest bit of the value. It stops at the end of b or
// of the next entry (a byte with bit 7 set), and after 32 bits.
func signedVarint(b []byte) int {
	var u uint32
	for i, shift := 0, 0; i < len(b) && b[i]&0x80 == 0 && shift < 32; i, shift = i+1, shift+6 {
		u |= uint32(b[i]&63) << shift
		if b[i]&64 == 0 {
			break
		}
	}
	if u&1 != 0 {
		return -int(u >> 1)
	}
	return int(u >> 1)
}

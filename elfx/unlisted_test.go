package elfx

import (
	"encoding/binary"
	"testing"
)

// lineProgramBytes is a line program header of the given version and
// offset size whose header_length leaves body bytes of opcodes after it.
func lineProgramBytes(version uint16, dwarf64 bool, header, body int) []byte {
	le := binary.LittleEndian
	var b []byte
	if dwarf64 {
		b = le.AppendUint32(b, 0xffffffff)
		b = le.AppendUint64(b, 0) // unit_length, set below
	} else {
		b = le.AppendUint32(b, 0)
	}
	start := len(b)
	b = le.AppendUint16(b, version)
	if version >= 5 {
		b = append(b, 8, 0)
	}
	if dwarf64 {
		b = le.AppendUint64(b, uint64(header))
	} else {
		b = le.AppendUint32(b, uint32(header))
	}
	b = append(b, make([]byte, header+body)...)
	if dwarf64 {
		le.PutUint64(b[4:], uint64(len(b)-start))
	} else {
		le.PutUint32(b, uint32(len(b)-start))
	}
	return b
}

// The early-debug units of an LTO build have line programs that are a
// header and nothing else: no rows, no code. Any opcode after the header
// (or a header that cannot be read) leaves the judgement to the line
// reader.
func TestEmptyLineProgram(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"v5 empty", lineProgramBytes(5, false, 40, 0), true},
		{"v5 one opcode", lineProgramBytes(5, false, 40, 1), false},
		{"v4 empty", lineProgramBytes(4, false, 30, 0), true},
		{"v4 rows", lineProgramBytes(4, false, 30, 12), false},
		{"v5 64-bit empty", lineProgramBytes(5, true, 40, 0), true},
		{"v5 64-bit rows", lineProgramBytes(5, true, 40, 3), false},
		{"header cut short", lineProgramBytes(5, false, 40, 0)[:8], false},
		{"version 1", lineProgramBytes(1, false, 40, 0), false},
		{"reserved length", []byte{0xf0, 0xff, 0xff, 0xff, 5, 0, 8, 0, 0, 0, 0, 0}, false},
		{"truncated", []byte{1, 0}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b
			if len(b) > lineHeaderPrefix {
				b = b[:lineHeaderPrefix] // what noCode reads
			}
			if got := emptyLineProgram(b, binary.LittleEndian); got != tc.want {
				t.Errorf("emptyLineProgram(% x) = %v, want %v", b, got, tc.want)
			}
		})
	}
}

// FuzzEmptyLineProgram: any bytes, no panic; a program judged empty
// ends where its header does.
func FuzzEmptyLineProgram(f *testing.F) {
	f.Add(lineProgramBytes(5, false, 40, 0))
	f.Add(lineProgramBytes(4, true, 30, 2))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !emptyLineProgram(b, binary.LittleEndian) {
			return
		}
		length := uint64(binary.LittleEndian.Uint32(b))
		if length == 0xffffffff {
			length = binary.LittleEndian.Uint64(b[4:])
		}
		if length < 2 {
			t.Fatalf("empty program of length %d", length)
		}
	})
}

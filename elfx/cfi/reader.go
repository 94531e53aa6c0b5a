package cfi

import (
	"encoding/binary"
	"errors"
)

// errShort is returned by reader methods when the data ends early; callers
// turn it into a FormatError that says where.
var errShort = errors.New("unexpected end of data")

// errOverflow is returned for LEB128 values that do not fit in 64 bits.
var errOverflow = errors.New("LEB128 value overflows 64 bits")

// reader decodes fixed-size and LEB128 values from b, tracking the
// position. It never reads past len(b).
type reader struct {
	b     []byte
	pos   int
	order binary.ByteOrder
}

func (r *reader) remaining() int { return len(r.b) - r.pos }

func (r *reader) u8() (uint8, error) {
	if r.pos >= len(r.b) {
		return 0, errShort
	}
	v := r.b[r.pos]
	r.pos++
	return v, nil
}

func (r *reader) u16() (uint16, error) {
	if r.remaining() < 2 {
		return 0, errShort
	}
	v := r.order.Uint16(r.b[r.pos:])
	r.pos += 2
	return v, nil
}

func (r *reader) u32() (uint32, error) {
	if r.remaining() < 4 {
		return 0, errShort
	}
	v := r.order.Uint32(r.b[r.pos:])
	r.pos += 4
	return v, nil
}

func (r *reader) u64() (uint64, error) {
	if r.remaining() < 8 {
		return 0, errShort
	}
	v := r.order.Uint64(r.b[r.pos:])
	r.pos += 8
	return v, nil
}

// uint reads an unsigned value of size 1, 2, 4 or 8 bytes.
func (r *reader) uint(size int) (uint64, error) {
	switch size {
	case 1:
		v, err := r.u8()
		return uint64(v), err
	case 2:
		v, err := r.u16()
		return uint64(v), err
	case 4:
		v, err := r.u32()
		return uint64(v), err
	case 8:
		return r.u64()
	}
	return 0, errors.New("unsupported value size")
}

func (r *reader) bytes(n uint64) ([]byte, error) {
	if n > uint64(r.remaining()) {
		return nil, errShort
	}
	b := r.b[r.pos : r.pos+int(n) : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

func (r *reader) skip(n uint64) error {
	_, err := r.bytes(n)
	return err
}

// cstring reads a NUL-terminated string.
func (r *reader) cstring() (string, error) {
	for i := r.pos; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.pos:i])
			r.pos = i + 1
			return s, nil
		}
	}
	return "", errShort
}

func (r *reader) uleb() (uint64, error) {
	var v uint64
	var shift uint
	for {
		if r.pos >= len(r.b) {
			return 0, errShort
		}
		c := r.b[r.pos]
		r.pos++
		if shift < 64 {
			if shift == 63 && c&0x7f > 1 {
				return 0, errOverflow
			}
			v |= uint64(c&0x7f) << shift
		} else if c&0x7f != 0 {
			return 0, errOverflow
		}
		shift += 7
		if c&0x80 == 0 {
			return v, nil
		}
	}
}

func (r *reader) sleb() (int64, error) {
	var v int64
	var shift uint
	var c byte
	for {
		if r.pos >= len(r.b) {
			return 0, errShort
		}
		c = r.b[r.pos]
		r.pos++
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		// Padding bytes beyond 64 bits are accepted and ignored, as
		// every producer's decoder does.
		shift += 7
		if c&0x80 == 0 {
			break
		}
	}
	if shift < 64 && c&0x40 != 0 {
		v |= -1 << shift
	}
	return v, nil
}

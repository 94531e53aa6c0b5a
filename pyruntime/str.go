package pyruntime

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"
)

// SymUnicodeType is str's type object: a pointer is read as a string
// only when its object's type is str.
const SymUnicodeType = "PyUnicode_Type"

// Bits of PyASCIIObject.state (interned:2, kind:3, compact:1, ascii:1),
// numbered from the first bit the compiler allocates: the lowest on a
// little-endian target, the highest on a big-endian one.
const (
	stateKindShift    = 2
	stateKindBits     = 3
	stateCompactShift = 5
	stateASCIIShift   = 6
)

// str reads the str object at addr as UTF-8, cut to maxString
// characters. Only compact strings (all that the compiler and
// PyUnicode_New make: names, file names, messages) are read.
func (r *Reader) str(mem Memory, addr uint64) (string, error) {
	l := r.layout
	if err := r.checkType(mem, addr, SymUnicodeType); err != nil {
		return "", err
	}
	n, err := r.word(mem, addr+uint64(l.UnicodeLength))
	if err != nil {
		return "", fmt.Errorf("str at %#x: %w", addr, err)
	}
	var st [4]byte
	if err := mem.ReadMem(addr+uint64(l.UnicodeState), st[:]); err != nil {
		return "", fmt.Errorf("str at %#x: %w", addr, err)
	}
	state := r.b.Order.Uint32(st[:])
	bit := func(shift, bits uint) uint32 {
		if r.b.Order == binary.BigEndian {
			shift = 32 - shift - bits
		}
		return state >> shift & (1<<bits - 1)
	}
	kind, compact, ascii := bit(stateKindShift, stateKindBits), bit(stateCompactShift, 1), bit(stateASCIIShift, 1)
	if compact == 0 {
		return "", fmt.Errorf("str at %#x is not compact", addr)
	}
	if kind != 1 && kind != 2 && kind != 4 {
		return "", fmt.Errorf("str at %#x: character size %d", addr, kind)
	}
	cut := n > maxString
	n = min(n, maxString)
	data := addr + uint64(l.UnicodeCompactData)
	if ascii != 0 {
		data = addr + uint64(l.UnicodeASCIIData)
	}
	buf := make([]byte, n*uint64(kind))
	if err := mem.ReadMem(data, buf); err != nil {
		return "", fmt.Errorf("str at %#x: %d characters at %#x: %w", addr, n, data, err)
	}
	var sb strings.Builder
	for i := 0; i < len(buf); i += int(kind) {
		var c rune
		switch kind {
		case 1:
			c = rune(buf[i])
		case 2:
			c = rune(r.b.Order.Uint16(buf[i:]))
		case 4:
			c = rune(r.b.Order.Uint32(buf[i:]))
		}
		if !utf8.ValidRune(c) {
			c = utf8.RuneError
		}
		sb.WriteRune(c)
	}
	if cut {
		sb.WriteString("...")
	}
	return sb.String(), nil
}

// checkType says whether the object at addr has the type object that
// typeSym names. A Binary without that symbol does not check.
func (r *Reader) checkType(mem Memory, addr uint64, typeSym string) error {
	if addr == 0 {
		return fmt.Errorf("NULL where a %s object was expected", typeName(typeSym))
	}
	want, ok := r.b.Symbols[typeSym]
	if !ok {
		return nil
	}
	typ, err := r.word(mem, addr+uint64(r.layout.ObjectType))
	if err != nil {
		return fmt.Errorf("object at %#x: %w", addr, err)
	}
	if typ != want+r.b.Bias {
		return fmt.Errorf("object at %#x is not a %s (type %#x)", addr, typeName(typeSym), typ)
	}
	return nil
}

// typeName is the Python name of the type a type symbol names.
func typeName(sym string) string {
	switch sym {
	case SymUnicodeType:
		return "str"
	case SymCodeType:
		return "code"
	case SymBytesType:
		return "bytes"
	case SymTupleType:
		return "tuple"
	}
	return sym
}

// cString reads a NUL-terminated C string at addr, at most maxString
// bytes.
func (r *Reader) cString(mem Memory, addr uint64) (string, error) {
	var out []byte
	var chunk [64]byte
	for len(out) < maxString {
		// Byte by byte past a chunk the memory ends in.
		p := chunk[:]
		if err := mem.ReadMem(addr+uint64(len(out)), p); err != nil {
			p = chunk[:1]
			if err := mem.ReadMem(addr+uint64(len(out)), p); err != nil {
				return "", fmt.Errorf("C string at %#x: %w", addr, err)
			}
		}
		for _, c := range p {
			if c == 0 {
				return string(out), nil
			}
			out = append(out, c)
		}
	}
	return string(out) + "...", nil
}

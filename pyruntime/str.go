package pyruntime

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SymUnicodeType is str's type object: a pointer is read as a string
// only when its object's type is str.
const SymUnicodeType = "PyUnicode_Type"

// str reads the str object at addr as UTF-8, cut to maxString
// characters.
func (r *Reader) str(mem Memory, addr uint64) (string, error) {
	u := &r.layout.Unicode
	if err := r.checkType(mem, addr, SymUnicodeType); err != nil {
		return "", err
	}
	n, err := r.word(mem, addr+uint64(u.Length))
	if err != nil {
		return "", fmt.Errorf("str at %#x: %w", addr, err)
	}
	var st [4]byte
	if err := mem.ReadMem(addr+uint64(u.State), st[:]); err != nil {
		return "", fmt.Errorf("str at %#x: %w", addr, err)
	}
	state := r.b.Order.Uint32(st[:])
	kind := u.Kind(state)
	if kind != 1 && kind != 2 && kind != 4 || !u.Ready(state) {
		return "", fmt.Errorf("str at %#x: not ready, or %d bytes a character", addr, kind)
	}
	var data uint64
	switch {
	case u.Compact(state) && u.ASCII(state):
		data = addr + uint64(u.ASCIISize)
	case u.Compact(state):
		data = addr + uint64(u.CompactSize)
	default:
		// A legacy string (<= 3.11) keeps its characters elsewhere.
		if data, err = r.field(mem, addr, u.Data); err != nil || data == 0 {
			return "", fmt.Errorf("str at %#x: no characters", addr)
		}
	}
	cut := n > maxString
	n = min(n, maxString)
	if err := r.readable(mem, data, n*uint64(kind)); err != nil {
		return "", fmt.Errorf("str at %#x: %d characters at %#x: %w", addr, n, data, err)
	}
	buf := make([]byte, n*uint64(kind))
	if err := mem.ReadMem(data, buf); err != nil {
		return "", fmt.Errorf("str at %#x: %d characters at %#x: %w", addr, n, data, err)
	}
	var sb strings.Builder
	for i := 0; i < len(buf); i += kind {
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
		return fmt.Errorf("a NULL pointer where a %s object was expected", typeName(typeSym))
	}
	want, ok := r.b.Symbols[typeSym]
	if !ok {
		return nil
	}
	typ, err := r.word(mem, addr+uint64(r.layout.Object.Type))
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
				return "", fmt.Errorf("a C string at %#x: %w", addr, err)
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

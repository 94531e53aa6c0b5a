package minidump

import (
	"encoding/binary"
	"unicode/utf16"
)

// le is the minidump byte order: the format is little-endian whatever the
// dumped machine.
var le = binary.LittleEndian

// file is the minidump's bytes with bounds-checked accessors: every read
// at an offset the file gives is checked here, once.
type file []byte

// slice returns the n bytes at off, or false when they are not all in the
// file.
func (f file) slice(off, n uint64) ([]byte, bool) {
	if off > uint64(len(f)) || n > uint64(len(f))-off {
		return nil, false
	}
	return f[off : off+n], true
}

// location is a MINIDUMP_LOCATION_DESCRIPTOR: DataSize then Rva.
type location struct {
	Size uint32
	RVA  uint32
}

func locationAt(b []byte) location {
	return location{Size: le.Uint32(b), RVA: le.Uint32(b[4:])}
}

// bytes returns the bytes a location names.
func (f file) bytes(l location) ([]byte, error) {
	b, ok := f.slice(uint64(l.RVA), uint64(l.Size))
	if !ok {
		return nil, formatErr(uint64(l.RVA), "%d bytes past the end of the file (%d bytes)", l.Size, len(f))
	}
	return b, nil
}

// maxString bounds a MINIDUMP_STRING or UTF-8 string: paths and
// annotation values, never megabytes.
const maxString = 64 << 10

// utf16String reads a MINIDUMP_STRING at rva: a byte length, then that
// many bytes of UTF-16LE.
func (f file) utf16String(rva uint32) (string, error) {
	h, ok := f.slice(uint64(rva), 4)
	if !ok {
		return "", formatErr(uint64(rva), "string length past the end of the file")
	}
	n := le.Uint32(h)
	if n > maxString || n%2 != 0 {
		return "", formatErr(uint64(rva), "string of %d bytes", n)
	}
	b, ok := f.slice(uint64(rva)+4, uint64(n))
	if !ok {
		return "", formatErr(uint64(rva), "string of %d bytes past the end of the file", n)
	}
	u := make([]uint16, n/2)
	for i := range u {
		u[i] = le.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u)), nil
}

// utf8String reads Crashpad's MinidumpUTF8String at rva: a byte length,
// then the bytes (and a NUL not counted).
func (f file) utf8String(rva uint32) (string, error) {
	h, ok := f.slice(uint64(rva), 4)
	if !ok {
		return "", formatErr(uint64(rva), "string length past the end of the file")
	}
	n := le.Uint32(h)
	if n > maxString {
		return "", formatErr(uint64(rva), "string of %d bytes", n)
	}
	b, ok := f.slice(uint64(rva)+4, uint64(n))
	if !ok {
		return "", formatErr(uint64(rva), "string of %d bytes past the end of the file", n)
	}
	return string(b), nil
}

// list checks a stream holding a count then count entries of size bytes
// (countSize 4 or 8) and returns the entries' bytes and the count that
// fits. Windows' writers pad a 4-byte count to 8 bytes; the padding is
// recognised by the stream's size, as rust-minidump does.
func list(b []byte, off uint64, countSize, size int) (entries []byte, n int, err error) {
	if len(b) < countSize {
		return nil, 0, formatErr(off, "list of %d bytes has no count", len(b))
	}
	var count uint64
	if countSize == 8 {
		count = le.Uint64(b)
	} else {
		count = uint64(le.Uint32(b))
	}
	body := b[countSize:]
	if countSize == 4 && uint64(len(body)) == count*uint64(size)+4 && count < 1<<32 {
		body = body[4:]
	}
	fit := uint64(len(body)) / uint64(size)
	if count > fit {
		err = formatErr(off, "list claims %d entries of %d bytes, %d fit in its %d bytes", count, size, fit, len(b))
		count = fit
	}
	return body[:count*uint64(size)], int(count), err
}

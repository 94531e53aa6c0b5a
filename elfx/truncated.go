package elfx

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// openError is the error for an image debug/elf could not read. It
// names the file once, and for a file cut short says which part lies
// past its end (debug/elf says only "EOF": the reader ran out).
func openError(name string, r io.ReaderAt, size int64, err error) error {
	var magic [4]byte
	if n, _ := r.ReadAt(magic[:], 0); n < len(magic) || string(magic[:]) != elf.ELFMAG {
		return fmt.Errorf("%s: not an ELF file", name)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: not a valid ELF file: %w", name, err)
	}
	return fmt.Errorf("%s: truncated ELF file (%s past the end of its %d bytes)", name, pastEnd(r, size), size)
}

// pastEnd names the first table of the ELF header's that does not fit in
// size bytes, as read from its header.
func pastEnd(r io.ReaderAt, size int64) string {
	var h [64]byte
	if n, _ := r.ReadAt(h[:], 0); n < 16 {
		return "ELF header"
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if h[5] == 2 {
		bo = binary.BigEndian
	}
	// The header's fields: ELF32 and ELF64 differ in offsets and widths.
	var hdrSize, phoff, shoff, phent, phnum, shent, shnum uint64
	if h[4] == 2 {
		hdrSize = 64
		phoff, shoff = bo.Uint64(h[0x20:]), bo.Uint64(h[0x28:])
		phent, phnum = uint64(bo.Uint16(h[0x36:])), uint64(bo.Uint16(h[0x38:]))
		shent, shnum = uint64(bo.Uint16(h[0x3a:])), uint64(bo.Uint16(h[0x3c:]))
	} else {
		hdrSize = 52
		phoff, shoff = uint64(bo.Uint32(h[0x1c:])), uint64(bo.Uint32(h[0x20:]))
		phent, phnum = uint64(bo.Uint16(h[0x2a:])), uint64(bo.Uint16(h[0x2c:]))
		shent, shnum = uint64(bo.Uint16(h[0x2e:])), uint64(bo.Uint16(h[0x30:]))
	}
	// beyond reports whether count entries of ent bytes at off end past
	// size (the counts are 16-bit, so nothing overflows but off).
	beyond := func(off, ent, count uint64) bool {
		return off > uint64(size) || ent*count > uint64(size)-off
	}
	switch {
	case uint64(size) < hdrSize:
		return "ELF header"
	case phnum > 0 && beyond(phoff, phent, phnum):
		return "program headers"
	case shoff != 0 && beyond(shoff, shent, max(shnum, 1)):
		return "section headers"
	}
	return "section data"
}

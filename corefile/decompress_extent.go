package corefile

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"io"
	"math"
)

// A decompressed core is written to disk as it streams in, so the
// decompressor must know when to stop before the stream ends: a
// decompression bomb would fill the temporary directory. An ELF file
// says how large it is: nothing of it lies past its program headers'
// segments (p_offset+p_filesz), its section headers' contents, or the
// two header tables themselves. Once the written prefix holds the
// headers, that end bounds the rest of the stream.

// elfExtent returns the end of the ELF file whose first have bytes r
// holds: the largest offset its headers give to anything in the file.
// known is false when r does not start with an ELF header, the headers
// are malformed, or a header table lies beyond the first have bytes
// (a core with more than 65535 segments keeps their count in a section
// header written at its end). It reads the tables an entry at a time:
// their sizes, counts and offsets are the file's, untrusted.
func elfExtent(r io.ReaderAt, have int64) (end int64, known bool) {
	var ident [elf.EI_NIDENT]byte
	if have < int64(len(ident)) || readAt(r, ident[:], 0) != nil || !isELF(ident[:]) {
		return 0, false
	}
	var order binary.ByteOrder
	switch elf.Data(ident[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		order = binary.LittleEndian
	case elf.ELFDATA2MSB:
		order = binary.BigEndian
	default:
		return 0, false
	}
	var l elfLayout
	switch elf.Class(ident[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		l = elf64Layout
	case elf.ELFCLASS32:
		l = elf32Layout
	default:
		return 0, false
	}
	hdr := make([]byte, l.ehsize)
	if have < int64(len(hdr)) || readAt(r, hdr, 0) != nil {
		return 0, false
	}
	phoff, shoff := l.word(order, hdr[l.phoff:]), l.word(order, hdr[l.phoff+l.wordSize:])
	tables := hdr[l.phoff+2*l.wordSize+6:] // after e_flags and e_ehsize
	phentsize, phnum := uint64(order.Uint16(tables[0:])), uint64(order.Uint16(tables[2:]))
	shentsize, shnum := uint64(order.Uint16(tables[4:])), uint64(order.Uint16(tables[6:]))
	end = int64(l.ehsize)

	// Extended numbering: the real counts are in section header 0.
	if shoff != 0 && (phnum == 0xffff || shnum == 0) {
		if shentsize < uint64(l.shdrSize) || addSat(shoff, shentsize) > uint64(have) {
			return 0, false
		}
		sh0 := make([]byte, l.shdrSize)
		if readAt(r, sh0, int64(shoff)) != nil {
			return 0, false
		}
		if phnum == 0xffff {
			phnum = uint64(order.Uint32(sh0[l.shInfo:]))
		}
		if shnum == 0 {
			shnum = l.word(order, sh0[l.shSize:])
		}
	}
	for _, t := range []struct {
		off, entsize, num uint64
		min               int
		entryEnd          func(e []byte) uint64
	}{
		{phoff, phentsize, phnum, l.phdrSize, func(e []byte) uint64 {
			if elf.ProgType(order.Uint32(e)) == elf.PT_NULL {
				return 0
			}
			return addSat(l.word(order, e[l.pOffset:]), l.word(order, e[l.pFilesz:]))
		}},
		{shoff, shentsize, shnum, l.shdrSize, func(e []byte) uint64 {
			switch elf.SectionType(order.Uint32(e[4:])) {
			case elf.SHT_NULL, elf.SHT_NOBITS:
				return 0
			}
			return addSat(l.word(order, e[l.shOffset:]), l.word(order, e[l.shSize:]))
		}},
	} {
		if t.num == 0 {
			continue
		}
		if t.entsize < uint64(t.min) {
			return 0, false
		}
		tableEnd := addSat(t.off, mulSat(t.num, t.entsize))
		if tableEnd > uint64(have) {
			return 0, false
		}
		end = max(end, int64(tableEnd))
		br := bufio.NewReaderSize(io.NewSectionReader(r, int64(t.off), int64(tableEnd-t.off)), 1<<16)
		e := make([]byte, t.entsize)
		for range t.num {
			if _, err := io.ReadFull(br, e); err != nil {
				return 0, false
			}
			end = max(end, int64(min(t.entryEnd(e), math.MaxInt64)))
		}
	}
	return end, true
}

// elfLayout is where the fields elfExtent reads are, in one ELF class.
type elfLayout struct {
	wordSize                   int // of addresses and offsets
	ehsize, phdrSize, shdrSize int
	phoff                      int // e_phoff; e_shoff follows
	pOffset, pFilesz           int
	shOffset, shSize, shInfo   int
}

var (
	elf64Layout = elfLayout{wordSize: 8, ehsize: 64, phdrSize: 56, shdrSize: 64, phoff: 32,
		pOffset: 8, pFilesz: 32, shOffset: 24, shSize: 32, shInfo: 44}
	elf32Layout = elfLayout{wordSize: 4, ehsize: 52, phdrSize: 32, shdrSize: 40, phoff: 28,
		pOffset: 4, pFilesz: 16, shOffset: 16, shSize: 20, shInfo: 28}
)

// word reads an address-sized field.
func (l elfLayout) word(order binary.ByteOrder, b []byte) uint64 {
	if l.wordSize == 8 {
		return order.Uint64(b)
	}
	return uint64(order.Uint32(b))
}

func readAt(r io.ReaderAt, b []byte, off int64) error {
	if off < 0 {
		return io.ErrUnexpectedEOF
	}
	_, err := r.ReadAt(b, off)
	return err
}

// addSat and mulSat saturate at math.MaxInt64: sizes from a hostile
// header must not wrap around to small ones.
func addSat(a, b uint64) uint64 {
	if a > math.MaxInt64 || b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

func mulSat(a, b uint64) uint64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

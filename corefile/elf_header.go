package corefile

import (
	"debug/elf"
	"encoding/binary"
)

// fileHeader is the part of an ELF header the loader needs, decoded for
// either class and byte order. It is used both for the core itself and for
// the ELF images (executable, libraries, vDSO) found in its memory.
type fileHeader struct {
	Class     elf.Class
	Order     binary.ByteOrder
	OSABI     elf.OSABI
	Type      elf.Type
	Machine   elf.Machine
	Entry     uint64
	Phoff     uint64
	Shoff     uint64
	Phentsize int
	Phnum     int // raw e_phnum; PN_XNUM (0xffff) means "see section 0"
	Shentsize int
}

// progHeader is one program header, widened to 64 bits.
type progHeader struct {
	Type   elf.ProgType
	Flags  elf.ProgFlag
	Off    uint64
	Vaddr  uint64
	Filesz uint64
	Memsz  uint64
	Align  uint64
}

const (
	elf32HeaderSize = 52
	elf64HeaderSize = 64
	elf32PhdrSize   = 32
	elf64PhdrSize   = 56
	pnXNum          = 0xffff
)

// isELF reports whether b starts with the ELF magic.
func isELF(b []byte) bool {
	return len(b) >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F'
}

// parseFileHeader decodes an ELF header from the start of b.
func parseFileHeader(b []byte) (*fileHeader, error) {
	if len(b) < elf.EI_NIDENT {
		return nil, formatErr(0, "file too short for an ELF identification (%d bytes)", len(b))
	}
	if !isELF(b) {
		return nil, formatErr(0, "bad ELF magic %q", b[:4])
	}
	h := &fileHeader{Class: elf.Class(b[elf.EI_CLASS]), OSABI: elf.OSABI(b[elf.EI_OSABI])}
	switch elf.Data(b[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		h.Order = binary.LittleEndian
	case elf.ELFDATA2MSB:
		h.Order = binary.BigEndian
	default:
		return nil, formatErr(uint64(elf.EI_DATA), "unknown ELF data encoding %d", b[elf.EI_DATA])
	}
	o := h.Order
	switch h.Class {
	case elf.ELFCLASS64:
		if len(b) < elf64HeaderSize {
			return nil, formatErr(0, "ELF64 header truncated (%d of %d bytes)", len(b), elf64HeaderSize)
		}
		h.Type = elf.Type(o.Uint16(b[16:]))
		h.Machine = elf.Machine(o.Uint16(b[18:]))
		h.Entry = o.Uint64(b[24:])
		h.Phoff = o.Uint64(b[32:])
		h.Shoff = o.Uint64(b[40:])
		h.Phentsize = int(o.Uint16(b[54:]))
		h.Phnum = int(o.Uint16(b[56:]))
		h.Shentsize = int(o.Uint16(b[58:]))
	case elf.ELFCLASS32:
		if len(b) < elf32HeaderSize {
			return nil, formatErr(0, "ELF32 header truncated (%d of %d bytes)", len(b), elf32HeaderSize)
		}
		h.Type = elf.Type(o.Uint16(b[16:]))
		h.Machine = elf.Machine(o.Uint16(b[18:]))
		h.Entry = uint64(o.Uint32(b[24:]))
		h.Phoff = uint64(o.Uint32(b[28:]))
		h.Shoff = uint64(o.Uint32(b[32:]))
		h.Phentsize = int(o.Uint16(b[42:]))
		h.Phnum = int(o.Uint16(b[44:]))
		h.Shentsize = int(o.Uint16(b[46:]))
	default:
		return nil, formatErr(uint64(elf.EI_CLASS), "unknown ELF class %d", b[elf.EI_CLASS])
	}
	return h, nil
}

// ptrSize is the word size of the header's class in bytes.
func (h *fileHeader) ptrSize() int {
	if h.Class == elf.ELFCLASS64 {
		return 8
	}
	return 4
}

// phdrSize is the minimum size of one program header for the class.
func (h *fileHeader) phdrSize() int {
	if h.Class == elf.ELFCLASS64 {
		return elf64PhdrSize
	}
	return elf32PhdrSize
}

// progCount resolves e_phnum, following PN_XNUM to section header 0's
// sh_info as the kernel writes it for cores with 65535 or more mappings.
// b is the whole file (or as much of it as is available).
func (h *fileHeader) progCount(b []byte) (int, error) {
	if h.Phnum != pnXNum {
		return h.Phnum, nil
	}
	// sh_info is at offset 44 (ELF64) or 28 (ELF32) of a section header.
	infoOff := uint64(28)
	if h.Class == elf.ELFCLASS64 {
		infoOff = 44
	}
	if h.Shoff == 0 || h.Shoff > uint64(len(b)) || uint64(len(b))-h.Shoff < infoOff+4 {
		return 0, formatErr(h.Shoff, "e_phnum is PN_XNUM but section header 0 is missing")
	}
	return int(h.Order.Uint32(b[h.Shoff+infoOff:])), nil
}

// parseProgHeaders decodes n program headers from tab, the bytes of the
// program header table. The count is bounded by the bytes present: a
// truncated table yields the complete entries and an error.
func parseProgHeaders(tab []byte, h *fileHeader, n int, tabOff uint64) ([]progHeader, error) {
	if h.Phentsize < h.phdrSize() {
		return nil, formatErr(tabOff, "e_phentsize %d smaller than %d", h.Phentsize, h.phdrSize())
	}
	var err error
	if avail := len(tab) / h.Phentsize; n > avail {
		err = formatErr(tabOff, "program header table truncated: %d of %d entries present", avail, n)
		n = avail
	}
	o := h.Order
	phs := make([]progHeader, n)
	for i := range phs {
		b := tab[i*h.Phentsize:]
		p := &phs[i]
		if h.Class == elf.ELFCLASS64 {
			p.Type = elf.ProgType(o.Uint32(b[0:]))
			p.Flags = elf.ProgFlag(o.Uint32(b[4:]))
			p.Off = o.Uint64(b[8:])
			p.Vaddr = o.Uint64(b[16:])
			p.Filesz = o.Uint64(b[32:])
			p.Memsz = o.Uint64(b[40:])
			p.Align = o.Uint64(b[48:])
		} else {
			p.Type = elf.ProgType(o.Uint32(b[0:]))
			p.Off = uint64(o.Uint32(b[4:]))
			p.Vaddr = uint64(o.Uint32(b[8:]))
			p.Filesz = uint64(o.Uint32(b[16:]))
			p.Memsz = uint64(o.Uint32(b[20:]))
			p.Flags = elf.ProgFlag(o.Uint32(b[24:]))
			p.Align = uint64(o.Uint32(b[28:]))
		}
	}
	return phs, err
}

// sliceAt returns b[off:off+n] clipped to the bytes present, and whether the
// whole range was present.
func sliceAt(b []byte, off, n uint64) ([]byte, bool) {
	if off >= uint64(len(b)) {
		return nil, n == 0
	}
	end := off + n
	if end < off || end > uint64(len(b)) {
		return b[off:], false
	}
	return b[off:end], true
}

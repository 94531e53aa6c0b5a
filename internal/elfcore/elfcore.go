// Package elfcore writes ELF core files for tests: the one writer behind
// every synthetic and interpreted core the suite makes (Linux cores of
// any class, byte order and machine, HP-UX ELF64 cores of PT_HP_CORE_*
// segments, gdb-readable re-wrappings). It lays a core out as the kernel
// does (header, program headers, notes, then segment contents) and checks
// nothing: tests use it to write damaged cores too. Tests only.
package elfcore

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
)

// Note is one ELF note.
type Note struct {
	Name string // "CORE", "LINUX", ... (the terminating NUL is added)
	Type uint32
	Desc []byte
}

// Segment is one program header with its contents.
type Segment struct {
	Type  elf.ProgType // 0 means PT_LOAD
	Flags elf.ProgFlag
	Vaddr uint64
	// Memsz is p_memsz; 0 means len(Data). p_filesz is len(Data).
	Memsz uint64
	Data  []byte
}

// File is an ET_CORE file to write.
type File struct {
	Class   elf.Class
	Order   binary.ByteOrder
	Machine elf.Machine
	OSABI   elf.OSABI
	Flags   uint32 // e_flags
	// NoteAlign is the notes' alignment (4 unless set; gdb's gcore
	// and some kernels use 8).
	NoteAlign int
	Notes     []Note
	Segments  []Segment
	// Align is each segment's alignment in the file and its p_align (1
	// unless set).
	Align uint64
}

// Header sizes of the two classes.
const (
	ehdr32, phdr32 = 52, 32
	ehdr64, phdr64 = 64, 56
)

// EncodeNotes lays notes out as a PT_NOTE segment holds them.
func EncodeNotes(notes []Note, order binary.ByteOrder, align int) []byte {
	if align == 0 {
		align = 4
	}
	var b bytes.Buffer
	pad := func() {
		for b.Len()%align != 0 {
			b.WriteByte(0)
		}
	}
	for _, n := range notes {
		binary.Write(&b, order, []uint32{uint32(len(n.Name) + 1), uint32(len(n.Desc)), n.Type})
		b.WriteString(n.Name)
		b.WriteByte(0)
		pad()
		b.Write(n.Desc)
		pad()
	}
	return b.Bytes()
}

// Bytes returns the core file. A PT_NOTE program header comes first when
// there are notes; a segment without data has file offset 0.
func (f *File) Bytes() []byte {
	is64 := f.Class == elf.ELFCLASS64
	ehsize, phsize := ehdr32, phdr32
	if is64 {
		ehsize, phsize = ehdr64, phdr64
	}
	align := max(f.Align, 1)
	noteAlign := f.NoteAlign
	if noteAlign == 0 {
		noteAlign = 4
	}
	var notes []byte
	if len(f.Notes) > 0 {
		notes = EncodeNotes(f.Notes, f.Order, noteAlign)
	}
	type phdr struct {
		typ                               elf.ProgType
		flags                             elf.ProgFlag
		off, vaddr, filesz, memsz, palign uint64
	}
	var phs []phdr
	nph := len(f.Segments)
	if notes != nil {
		nph++
	}
	off := uint64(ehsize + nph*phsize)
	var body bytes.Buffer
	if notes != nil {
		phs = append(phs, phdr{elf.PT_NOTE, 0, off, 0, uint64(len(notes)), 0, uint64(noteAlign)})
		body.Write(notes)
		off += uint64(len(notes))
	}
	for _, s := range f.Segments {
		typ := s.Type
		if typ == 0 {
			typ = elf.PT_LOAD
		}
		memsz := s.Memsz
		if memsz == 0 {
			memsz = uint64(len(s.Data))
		}
		segOff := uint64(0)
		if len(s.Data) > 0 {
			for off%align != 0 {
				body.WriteByte(0)
				off++
			}
			segOff = off
			body.Write(s.Data)
			off += uint64(len(s.Data))
		}
		phs = append(phs, phdr{typ, s.Flags, segOff, s.Vaddr, uint64(len(s.Data)), memsz, align})
	}

	var b bytes.Buffer
	ident := [16]byte{0x7f, 'E', 'L', 'F', byte(f.Class), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT), byte(f.OSABI)}
	if f.Order == binary.BigEndian {
		ident[elf.EI_DATA] = byte(elf.ELFDATA2MSB)
	}
	b.Write(ident[:])
	o := f.Order
	word := func(v uint64) {
		if is64 {
			binary.Write(&b, o, v)
		} else {
			binary.Write(&b, o, uint32(v))
		}
	}
	binary.Write(&b, o, []uint16{uint16(elf.ET_CORE), uint16(f.Machine)})
	binary.Write(&b, o, uint32(elf.EV_CURRENT))
	word(0)              // e_entry
	word(uint64(ehsize)) // e_phoff
	word(0)              // e_shoff
	binary.Write(&b, o, f.Flags)
	shentsize := uint16(40)
	if is64 {
		shentsize = 64
	}
	binary.Write(&b, o, []uint16{uint16(ehsize), uint16(phsize), uint16(nph), shentsize, 0, 0})
	for _, p := range phs {
		if is64 {
			binary.Write(&b, o, []uint32{uint32(p.typ), uint32(p.flags)})
			binary.Write(&b, o, []uint64{p.off, p.vaddr, 0, p.filesz, p.memsz, p.palign})
		} else {
			binary.Write(&b, o, []uint32{uint32(p.typ), uint32(p.off), uint32(p.vaddr), 0, uint32(p.filesz), uint32(p.memsz), uint32(p.flags), uint32(p.palign)})
		}
	}
	b.Write(body.Bytes())
	return b.Bytes()
}

// Write writes the core file to path.
func (f *File) Write(path string) error {
	return os.WriteFile(path, f.Bytes(), 0o644)
}

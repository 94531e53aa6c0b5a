package unwtab

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Section and program header types of IA-64 unwind tables.
const (
	SHT_IA_64_UNWIND = elf.SectionType(0x70000001)
	PT_IA_64_UNWIND  = elf.ProgType(0x70000001)
)

// Entry is one .IA_64.unwind table entry: the procedure [Start, End) at
// link-time addresses (segment base applied) and where its unwind info
// block is.
type Entry struct {
	Start, End uint64
	// InfoOffset is the table's third word: the info block's offset from
	// the segment base (in relocatable objects: from its section).
	InfoOffset uint64
	table      *Table
	infoSec    *elf.Section // relocatable objects: the section InfoOffset is in
}

// Table is an object's IA-64 unwind table.
type Table struct {
	Order   binary.ByteOrder
	PtrSize int    // 8 for ELF64; 4 for ILP32 (HP-UX)
	SegBase uint64 // p_vaddr of the PT_LOAD holding the table (0 in .o files)
	Entries []Entry
	// Warnings lists entries that were dropped (bad relocations, empty
	// ranges) while the rest of the table was kept.
	Warnings []string
	f        *elf.File
}

// ErrNoTable: the object has no .IA_64.unwind section.
var ErrNoTable = errors.New("no .IA_64.unwind section")

// maxEntries bounds a table no real object comes near (libc has ~3000).
const maxEntries = 1 << 22

// ReadTable reads f's .IA_64.unwind table, sorted by Start.
func ReadTable(f *elf.File) (*Table, error) {
	var sec *elf.Section
	for _, s := range f.Sections {
		if s.Type == SHT_IA_64_UNWIND || s.Name == ".IA_64.unwind" {
			sec = s
			break
		}
	}
	if sec == nil || sec.Type == elf.SHT_NOBITS {
		return nil, ErrNoTable
	}
	t := &Table{Order: f.ByteOrder, PtrSize: 8, f: f}
	if f.Class == elf.ELFCLASS32 {
		t.PtrSize = 4
	}
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sec.Name, err)
	}
	if f.Type == elf.ET_REL {
		if err := t.readRelocatable(sec, data); err != nil {
			return nil, err
		}
	} else {
		t.SegBase = segBase(f, sec.Addr)
		ent := 3 * t.PtrSize
		if len(data)/ent > maxEntries {
			return nil, fmt.Errorf("%s: %d entries: too many", sec.Name, len(data)/ent)
		}
		for off := 0; off+ent <= len(data); off += ent {
			e := Entry{Start: t.word(data[off:]), End: t.word(data[off+t.PtrSize:]), InfoOffset: t.word(data[off+2*t.PtrSize:])}
			t.add(e, off)
		}
	}
	sort.SliceStable(t.Entries, func(i, j int) bool { return t.Entries[i].Start < t.Entries[j].Start })
	for i := range t.Entries {
		t.Entries[i].table = t
	}
	return t, nil
}

func (t *Table) word(b []byte) uint64 {
	if t.PtrSize == 4 {
		return uint64(t.Order.Uint32(b))
	}
	return t.Order.Uint64(b)
}

// add keeps e unless it is empty: the tail of a table can be zero-filled.
func (t *Table) add(e Entry, off int) {
	if e.Start == 0 && e.End == 0 && e.InfoOffset == 0 {
		return
	}
	if e.End <= e.Start {
		t.Warnings = append(t.Warnings, fmt.Sprintf("entry at %#x: empty range [%#x-%#x)", off, e.Start, e.End))
		return
	}
	e.Start += t.SegBase
	e.End += t.SegBase
	t.Entries = append(t.Entries, e)
}

// segBase is the p_vaddr of the PT_LOAD containing addr (libunwind and
// readelf both search for it: the gate DSO's table is not in the first
// segment).
func segBase(f *elf.File, addr uint64) uint64 {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr-p.Vaddr < p.Memsz {
			return p.Vaddr
		}
	}
	return 0
}

// Lookup returns the entry covering the link-time address addr.
func (t *Table) Lookup(addr uint64) (*Entry, bool) {
	i := sort.Search(len(t.Entries), func(i int) bool { return t.Entries[i].Start > addr }) - 1
	if i < 0 || addr >= t.Entries[i].End {
		return nil, false
	}
	return &t.Entries[i], true
}

// Info reads and parses the entry's unwind info block.
func (e *Entry) Info() (*Info, error) {
	if e.table == nil {
		return nil, errors.New("ia64: entry without a table")
	}
	t := e.table
	if e.infoSec != nil {
		data, err := e.infoSec.Data()
		if err != nil {
			return nil, err
		}
		return ParseInfo(data, e.InfoOffset, t.Order, t.PtrSize)
	}
	addr := t.SegBase + e.InfoOffset
	data, off, err := t.bytesAt(addr)
	if err != nil {
		return nil, fmt.Errorf("unwind info of [%#x-%#x) at %#x: %w", e.Start, e.End, addr, err)
	}
	return ParseInfo(data, off, t.Order, t.PtrSize)
}

// bytesAt returns the contents of the allocated section holding addr and
// addr's offset in it.
func (t *Table) bytesAt(addr uint64) ([]byte, uint64, error) {
	for _, s := range t.f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS || addr < s.Addr || addr-s.Addr >= s.Size {
			continue
		}
		data, err := s.Data()
		if err != nil {
			return nil, 0, err
		}
		return data, addr - s.Addr, nil
	}
	for _, p := range t.f.Progs {
		if p.Type != elf.PT_LOAD || addr < p.Vaddr || addr-p.Vaddr >= p.Filesz {
			continue
		}
		// ReadAll grows with the bytes really there: p_filesz is a
		// field of the file, not a promise.
		data, err := io.ReadAll(p.Open())
		if err != nil {
			return nil, 0, err
		}
		if addr-p.Vaddr >= uint64(len(data)) {
			return nil, 0, fmt.Errorf("address %#x is past the end of its segment's data", addr)
		}
		return data, addr - p.Vaddr, nil
	}
	return nil, 0, fmt.Errorf("address %#x is in no section or segment of the file", addr)
}

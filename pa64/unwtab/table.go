package unwtab

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"
)

// SectionName is the name of the unwind table section in ELF32 and ELF64
// PA-RISC objects (its type is SHT_PROGBITS in ELF32, SHT_PARISC_UNWIND in
// ELF64, so it is found by name, as readelf and gdb do).
const SectionName = ".PARISC.unwind"

// EntrySize is the size of one table entry in both ELF classes.
const EntrySize = 16

// rParisc_SEGREL32 is the relocation gas puts on region_start and
// region_end in relocatable objects.
const rParisc_SEGREL32 = 49

// Entry is one unwind table entry with its region as link-time addresses.
type Entry struct {
	// Start is the region's first instruction; End its last instruction
	// (inclusive, as the table stores it).
	Start, End uint64
	Desc       Descriptor
	// Raw holds region_start and region_end as the section stores them
	// (segment-relative, or as gas wrote them in a relocatable object).
	RawStart, RawEnd uint32
}

// Contains reports whether addr lies in the entry's region: End is the
// address of the last instruction, so the region covers [Start, End+4)
// (a caller's lookup address, return address - 1, may fall in the last
// instruction's bytes).
func (e *Entry) Contains(addr uint64) bool { return e.Start <= addr && addr < e.End+4 }

// Table is the unwind table of one object: the entries of every
// .PARISC.unwind section in file order, with a sorted index for lookups.
type Table struct {
	Entries  []Entry
	SegBase  uint64   // added to the raw offsets (0 in relocatable objects)
	Warnings []string // problems that did not stop reading
	sorted   []int    // indexes into Entries by Start
}

// ErrNoTable is returned (wrapped) by ReadTable for an object without a
// .PARISC.unwind section.
var ErrNoTable = errors.New("no .PARISC.unwind section")

// ReadTable reads and decodes the unwind table of f. A section whose size
// is not a multiple of 16 gives its whole entries and a warning.
func ReadTable(f *elf.File) (*Table, error) {
	if f.Machine != elf.EM_PARISC {
		return nil, fmt.Errorf("unwind table: machine %v is not PA-RISC", f.Machine)
	}
	t := &Table{}
	found := false
	for i, s := range f.Sections {
		if s.Name != SectionName {
			continue
		}
		found = true
		if err := t.readSection(f, i, s); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, ErrNoTable
	}
	t.sorted = make([]int, len(t.Entries))
	for i := range t.sorted {
		t.sorted[i] = i
	}
	sort.SliceStable(t.sorted, func(a, b int) bool { return t.Entries[t.sorted[a]].Start < t.Entries[t.sorted[b]].Start })
	return t, nil
}

func (t *Table) readSection(f *elf.File, idx int, s *elf.Section) error {
	if s.Type == elf.SHT_NOBITS {
		return nil
	}
	data, err := s.Data()
	if err != nil {
		return fmt.Errorf("%s at offset %#x: %w", SectionName, s.Offset, err)
	}
	if len(data)%EntrySize != 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s at offset %#x: size %d is not a multiple of %d; the last %d bytes are ignored",
			SectionName, s.Offset, len(data), EntrySize, len(data)%EntrySize))
	}
	base, relocs := uint64(0), map[uint64]uint64(nil)
	if f.Type == elf.ET_REL {
		relocs, err = segrelRelocs(f, idx)
		if err != nil {
			t.Warnings = append(t.Warnings, err.Error())
		}
	} else {
		base = segmentBase(f, s)
		t.SegBase = base
	}
	o := f.ByteOrder
	for off := 0; off+EntrySize <= len(data); off += EntrySize {
		e := Entry{
			RawStart: o.Uint32(data[off:]),
			RawEnd:   o.Uint32(data[off+4:]),
			Desc:     Descriptor{W1: o.Uint32(data[off+8:]), W2: o.Uint32(data[off+12:])},
		}
		e.Start, e.End = base+uint64(e.RawStart), base+uint64(e.RawEnd)
		if v, ok := relocs[uint64(off)]; ok {
			e.Start = v
		}
		if v, ok := relocs[uint64(off+4)]; ok {
			e.End = v
		}
		t.Entries = append(t.Entries, e)
	}
	return nil
}

// segmentBase is what region offsets are relative to in a linked object:
// the p_vaddr of the PT_LOAD segment that holds the unwind section (as
// readelf does), else of the first executable PT_LOAD.
func segmentBase(f *elf.File, s *elf.Section) uint64 {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && s.Addr >= p.Vaddr && s.Addr-p.Vaddr < p.Memsz {
			return p.Vaddr
		}
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			return p.Vaddr
		}
	}
	return 0
}

// segrelRelocs returns the values (symbol + addend) of the R_PARISC_SEGREL32
// relocations that apply to section idx of a relocatable object, by offset.
func segrelRelocs(f *elf.File, idx int) (map[uint64]uint64, error) {
	out := map[uint64]uint64{}
	var syms []elf.Symbol
	symsRead := false
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_RELA || int(rs.Info) != idx {
			continue
		}
		data, err := rs.Data()
		if err != nil {
			return out, fmt.Errorf("%s: %w", rs.Name, err)
		}
		if !symsRead {
			syms, _ = f.Symbols()
			symsRead = true
		}
		is64 := f.Class == elf.ELFCLASS64
		size := 12
		if is64 {
			size = 24
		}
		o := f.ByteOrder
		for off := 0; off+size <= len(data); off += size {
			var roff, info uint64
			var addend int64
			if is64 {
				roff, info, addend = o.Uint64(data[off:]), o.Uint64(data[off+8:]), int64(o.Uint64(data[off+16:]))
			} else {
				roff, info, addend = uint64(o.Uint32(data[off:])), uint64(o.Uint32(data[off+4:])), int64(int32(o.Uint32(data[off+8:])))
			}
			typ, sym := info&0xff, info>>8
			if is64 {
				typ, sym = info&0xffffffff, info>>32
			}
			if typ != rParisc_SEGREL32 {
				continue
			}
			var value uint64
			if sym > 0 && int(sym) <= len(syms) {
				value = syms[sym-1].Value
			}
			out[roff] = uint32Wrap(value + uint64(addend))
		}
	}
	return out, nil
}

// uint32Wrap keeps the low 32 bits: SEGREL32 fills a 32-bit word.
func uint32Wrap(v uint64) uint64 { return v & 0xffffffff }

// Lookup returns the entry whose region holds addr (a link-time address),
// by binary search over the entries sorted by start.
func (t *Table) Lookup(addr uint64) (*Entry, bool) {
	i := sort.Search(len(t.sorted), func(i int) bool { return t.Entries[t.sorted[i]].Start > addr }) - 1
	// Regions do not overlap in well-formed tables; look back a little in
	// case a hostile or odd one nests a short region after a long one.
	for j := i; j >= 0 && j > i-4; j-- {
		if e := &t.Entries[t.sorted[j]]; e.Contains(addr) {
			return e, true
		}
	}
	return nil, false
}

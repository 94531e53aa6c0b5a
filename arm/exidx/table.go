package exidx

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"
)

// ErrNoTable: the object has no .ARM.exidx section.
var ErrNoTable = errors.New("no .ARM.exidx section")

// shtARMExidx is SHT_ARM_EXIDX.
const shtARMExidx = elf.SectionType(0x70000001)

// maxSection bounds how much of one section is read (64 MiB: far more
// than any real index or extab; a hostile size fails instead).
const maxSection = 64 << 20

// Kind says what an index entry's second word holds.
type Kind uint8

const (
	KindCantUnwind Kind = iota + 1 // EXIDX_CANTUNWIND
	KindInline                     // personality 0's opcodes in the word itself
	KindExtab                      // a prel31 pointer to an .ARM.extab entry
)

// Entry is one index entry: the function starting at Start (link-time
// address; in a relocatable object, the offset in its section) up to
// End, the next entry's start (or its section's end for the last).
type Entry struct {
	Start, End uint64
	Thumb      bool   // bit 0 of the start: the function is Thumb code
	Word       uint32 // the second word as stored
	Kind       Kind
	// Extab is the extab entry's address (KindExtab), in the same space
	// as Start.
	Extab uint64
	// Section is the index section the entry is in.
	Section string
	tab     *Table
}

// Table is an object's index entries, sorted by start.
type Table struct {
	Entries  []Entry
	Warnings []string
	order    elfOrder
	spaces   map[string]*space // extab bytes by index section (relocatable objects), or "" for the loaded image
	// relocs maps, per index section of a relocatable object, extab
	// offsets to what their R_ARM_PREL31 relocation's symbol resolves to
	// (the personality routine).
	relocs map[string]map[uint64]uint64
}

// sectionIndex is s's index in f.
func sectionIndex(f *elf.File, s *elf.Section) int {
	for i, x := range f.Sections {
		if x == s {
			return i
		}
	}
	return -1
}

// space is memory extab entries are read from: one section's bytes at an
// address.
type space struct {
	addr uint64
	data []byte
}

type elfOrder interface{ Uint32([]byte) uint32 }

// read32 reads the word at addr of the space sp.
func (sp *space) read32(order elfOrder, addr uint64) (uint32, bool) {
	if sp == nil || addr < sp.addr || addr-sp.addr > uint64(len(sp.data)) || uint64(len(sp.data))-(addr-sp.addr) < 4 {
		return 0, false
	}
	return order.Uint32(sp.data[addr-sp.addr:]), true
}

// ReadTable reads every .ARM.exidx section of f. In an executable or
// shared object the entries' addresses are link-time addresses; in a
// relocatable object each is resolved through its R_ARM_PREL31
// relocation to an offset in the section of the symbol it refers to, as
// readelf -u prints them.
func ReadTable(f *elf.File) (*Table, error) {
	t := &Table{order: f.ByteOrder, spaces: map[string]*space{}, relocs: map[string]map[uint64]uint64{}}
	found := false
	for _, s := range f.Sections {
		if s.Type != shtARMExidx {
			continue
		}
		found = true
		if err := t.readSection(f, s); err != nil {
			t.Warnings = append(t.Warnings, err.Error())
		}
	}
	if !found {
		return nil, ErrNoTable
	}
	if f.Type != elf.ET_REL {
		sort.SliceStable(t.Entries, func(i, j int) bool { return t.Entries[i].Start < t.Entries[j].Start })
	}
	return t, nil
}

// sectionData reads s, bounded.
func sectionData(s *elf.Section) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("section %s has no data", s.Name)
	}
	if s.Size > maxSection {
		return nil, fmt.Errorf("section %s: %d bytes is more than %d", s.Name, s.Size, maxSection)
	}
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		return nil, fmt.Errorf("section %s is compressed", s.Name)
	}
	// The size must lie within the file before it is allocated.
	var last [1]byte
	if s.Size > 0 {
		if _, err := s.ReadAt(last[:], int64(s.Size-1)); err != nil {
			return nil, fmt.Errorf("section %s: %d bytes run past the end of the file", s.Name, s.Size)
		}
	}
	return s.Data()
}

// readSection appends the entries of index section s.
func (t *Table) readSection(f *elf.File, s *elf.Section) error {
	data, err := sectionData(s)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	if len(data)%8 != 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s: size %d is not a multiple of 8; the last %d bytes are ignored", s.Name, len(data), len(data)%8))
	}
	var rel map[uint64]relocTarget
	if f.Type == elf.ET_REL {
		rel, err = relocations(f, sectionIndex(f, s))
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	first := len(t.Entries)
	for off := 0; off+8 <= len(data); off += 8 {
		w0, w1 := t.order.Uint32(data[off:]), t.order.Uint32(data[off+4:])
		e := Entry{Word: w1, Section: s.Name, tab: t}
		place := s.Addr + uint64(off)
		start, ok := resolve(rel, uint64(off), place, w0)
		if !ok {
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s+%#x: function start has no relocation", s.Name, off))
			continue
		}
		if w0&inlineBit != 0 {
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s+%#x: function start %#x has bit 31 set", s.Name, off, w0))
		}
		e.Start, e.Thumb = start.addr&^1, start.addr&1 != 0
		switch {
		case w1 == CantUnwind:
			e.Kind = KindCantUnwind
		case w1&inlineBit != 0:
			e.Kind = KindInline
		default:
			x, ok := resolve(rel, uint64(off+4), place+4, w1)
			if !ok {
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s+%#x: extab pointer has no relocation", s.Name, off+4))
				continue
			}
			e.Kind, e.Extab = KindExtab, x.addr
			if err := t.mapExtab(f, s.Name, x.section); err != nil {
				t.Warnings = append(t.Warnings, err.Error())
			}
		}
		t.Entries = append(t.Entries, e)
	}
	// Each entry ends where the next begins; the last at the end of the
	// code section the index describes (sh_link), or at its start.
	entries := t.Entries[first:]
	var codeEnd uint64
	if int(s.Link) < len(f.Sections) && s.Link != 0 {
		cs := f.Sections[s.Link]
		codeEnd = cs.Addr + cs.Size
	}
	for i := range entries {
		switch {
		case i+1 < len(entries):
			entries[i].End = entries[i+1].Start
		case codeEnd > entries[i].Start:
			entries[i].End = codeEnd
		default:
			entries[i].End = entries[i].Start
		}
	}
	if f.Type != elf.ET_REL {
		return t.mapImage(f)
	}
	return nil
}

// mapImage makes an executable's or shared object's .ARM.extab readable
// for extab lookups, once (under the key "": one image for every index
// section).
func (t *Table) mapImage(f *elf.File) error {
	if t.spaces[""] != nil {
		return nil
	}
	for _, s := range f.Sections {
		if s.Name == ".ARM.extab" {
			data, err := sectionData(s)
			if err != nil {
				return fmt.Errorf("%s: %w", s.Name, err)
			}
			t.spaces[""] = &space{addr: s.Addr, data: data}
			return nil
		}
	}
	return nil
}

// mapExtab makes the extab section idx of a relocatable object readable
// for the entries of index section name.
func (t *Table) mapExtab(f *elf.File, name string, idx int) error {
	if _, ok := t.spaces[name]; ok || idx <= 0 || idx >= len(f.Sections) {
		return nil
	}
	s := f.Sections[idx]
	data, err := sectionData(s)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	t.spaces[name] = &space{data: data}
	rel, err := relocations(f, idx)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	m := map[uint64]uint64{}
	for off, r := range rel {
		m[off] = r.addr
	}
	t.relocs[name] = m
	return nil
}

// Lookup returns the entry covering link-time address addr.
func (t *Table) Lookup(addr uint64) (*Entry, bool) {
	i := sort.Search(len(t.Entries), func(i int) bool { return t.Entries[i].Start > addr }) - 1
	if i < 0 {
		return nil, false
	}
	return &t.Entries[i], true
}

// word reads the extab word at addr for e.
func (e *Entry) word(addr uint64) (uint32, bool) {
	if e.tab == nil {
		return 0, false
	}
	key := ""
	if _, ok := e.tab.spaces[e.Section]; ok {
		key = e.Section
	}
	return e.tab.spaces[key].read32(e.tab.order, addr)
}

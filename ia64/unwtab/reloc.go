package unwtab

import (
	"debug/elf"
	"fmt"
)

// Relocation types of table words in relocatable objects.
const (
	rIA64SegRel64MSB = 0x5e
	rIA64SegRel64LSB = 0x5f
)

// readRelocatable fills the table of a relocatable object: every word of
// .IA_64.unwind is 0 plus an R_IA64_SEGREL64 relocation against a
// section symbol, so the entry is read from the relocations.
func (t *Table) readRelocatable(sec *elf.Section, data []byte) error {
	var rela *elf.Section
	for _, s := range t.f.Sections {
		if s.Type == elf.SHT_RELA && int(s.Info) < len(t.f.Sections) && t.f.Sections[s.Info] == sec {
			rela = s
			break
		}
	}
	if rela == nil {
		return fmt.Errorf("%s: relocatable object without relocations for the table", sec.Name)
	}
	rd, err := rela.Data()
	if err != nil {
		return fmt.Errorf("%s: %w", rela.Name, err)
	}
	syms, err := t.f.Symbols()
	if err != nil {
		return fmt.Errorf("%s: symbols: %w", sec.Name, err)
	}
	type val struct {
		v   uint64
		sec *elf.Section
		ok  bool
	}
	ent := 3 * t.PtrSize
	if len(data)/ent > maxEntries {
		return fmt.Errorf("%s: %d entries: too many", sec.Name, len(data)/ent)
	}
	words := make([]val, len(data)/t.PtrSize)
	const relaSize = 24
	for off := 0; off+relaSize <= len(rd); off += relaSize {
		where := t.Order.Uint64(rd[off:])
		info := t.Order.Uint64(rd[off+8:])
		add := t.Order.Uint64(rd[off+16:])
		typ, si := info&0xffffffff, info>>32
		if typ != rIA64SegRel64LSB && typ != rIA64SegRel64MSB {
			continue
		}
		if where%uint64(t.PtrSize) != 0 || where/uint64(t.PtrSize) >= uint64(len(words)) || si == 0 || si > uint64(len(syms)) {
			t.Warnings = append(t.Warnings, fmt.Sprintf("relocation at %#x: bad offset or symbol", off))
			continue
		}
		s := syms[si-1]
		w := val{v: s.Value + add + t.word(data[where:]), ok: true}
		if int(s.Section) > 0 && int(s.Section) < len(t.f.Sections) {
			w.sec = t.f.Sections[s.Section]
		}
		words[where/uint64(t.PtrSize)] = w
	}
	for i := 0; i+2 < len(words); i += 3 {
		s, e, inf := words[i], words[i+1], words[i+2]
		if !s.ok || !e.ok || !inf.ok {
			continue
		}
		t.add(Entry{Start: s.v, End: e.v, InfoOffset: inf.v, infoSec: inf.sec}, i*t.PtrSize)
	}
	return nil
}

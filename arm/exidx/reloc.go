package exidx

import (
	"debug/elf"
	"fmt"
)

// rARMPrel31 is R_ARM_PREL31.
const rARMPrel31 = 42

// relocTarget is where a relocated prel31 field points: an offset in
// section (an index into the object's sections).
type relocTarget struct {
	addr    uint64
	section int
}

// relocations reads the REL sections applying to section idx of a
// relocatable object: for each R_ARM_PREL31 the offset it relocates
// and the symbol's section and value.
func relocations(f *elf.File, idx int) (map[uint64]relocTarget, error) {
	syms, err := f.Symbols()
	if err != nil && err != elf.ErrNoSymbols {
		return nil, err
	}
	out := map[uint64]relocTarget{}
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_REL || int(rs.Info) != idx {
			continue
		}
		data, err := sectionData(rs)
		if err != nil {
			return nil, err
		}
		for off := 0; off+8 <= len(data); off += 8 {
			r, info := f.ByteOrder.Uint32(data[off:]), f.ByteOrder.Uint32(data[off+4:])
			if info&0xff != rARMPrel31 {
				continue
			}
			// debug/elf's Symbols omits the null symbol 0.
			sym := int(info>>8) - 1
			if sym < 0 || sym >= len(syms) {
				return nil, fmt.Errorf("relocation at %#x: symbol %d out of range", r, sym+1)
			}
			out[uint64(r)] = relocTarget{addr: syms[sym].Value, section: int(syms[sym].Section)}
		}
	}
	return out, nil
}

// resolve computes the address a prel31 field at offset off (address
// place) points to: through its relocation in a relocatable object
// (symbol value plus the in-place addend, as readelf -u prints it), else
// place-relative.
func resolve(rel map[uint64]relocTarget, off, place uint64, word uint32) (relocTarget, bool) {
	if rel == nil {
		return relocTarget{addr: uint64(uint32(int64(place) + prel31(word)))}, true
	}
	r, ok := rel[off]
	if !ok {
		return relocTarget{}, false
	}
	return relocTarget{addr: uint64(uint32(int64(r.addr) + prel31(word))), section: r.section}, true
}

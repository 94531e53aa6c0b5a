package analyze

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
)

// Relocatable JIT objects. LLVM's MCJIT and ORC (RuntimeDyld) and V8
// register ET_REL objects with the GDB JIT interface: the JIT loads each
// allocated section somewhere, relocates that loaded copy, and registers
// a copy of the original object whose section headers carry the load
// addresses (sh_addr) and nothing else changed. Symbol values stay
// relative to their section, and the object's own .eh_frame and DWARF
// sections keep their relocations unapplied.
//
// gdb reads such a symfile through bfd: a symbol's address is its
// section's sh_addr plus st_value, and debug sections are relocated
// against those addresses when read. locateRelocatable rewrites the
// image to the same effect, so that the rest of coreunwind reads it as an
// absolute object:
//
//   - every symbol defined in a real section gets sh_addr added to its
//     value, which also makes elf.File.DWARF's relocation of the debug
//     sections (S+A, for relocatable objects) yield load addresses;
//   - every allocated section that has relocations and a load address
//     takes the bytes at that address in the core: the JIT relocated
//     that copy in place (MCJIT's .eh_frame, which it also hands to the
//     unwinder of the process itself, is the one that matters). When the
//     loaded copy cannot be read its bytes are zeroed: unrelocated
//     .eh_frame entries would describe code at address zero, and an
//     .eh_frame that starts with a zero length is empty.

// maxJITSectionSpan bounds a section's load address range: a hostile
// size must not make one object claim the whole address space.
const maxJITSectionSpan = 1 << 30

// locateRelocatable rewrites img, an ET_REL object parsed as ef, as
// described above; mem holds the sections' loaded copies.
func locateRelocatable(mem memReader, img []byte, ef *elf.File) (warnings []string) {
	warn := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	inImage := func(s *elf.Section) bool {
		return s.Type != elf.SHT_NOBITS && s.Offset <= uint64(len(img)) && s.FileSize <= uint64(len(img))-s.Offset
	}

	for _, tab := range ef.Sections {
		if tab.Type != elf.SHT_SYMTAB {
			continue
		}
		if !inImage(tab) {
			warn("symbol table %s [%#x+%#x] runs past the image (%d bytes)", tab.Name, tab.Offset, tab.FileSize, len(img))
			continue
		}
		if bad := locateSymbols(img[tab.Offset:tab.Offset+tab.FileSize], ef); bad > 0 {
			warn("symbol table %s: %d symbols with an invalid section index or address ignored", tab.Name, bad)
		}
	}

	relocated := map[int]bool{}
	for _, r := range ef.Sections {
		if (r.Type == elf.SHT_RELA || r.Type == elf.SHT_REL) && r.Info != 0 && int(r.Info) < len(ef.Sections) {
			relocated[int(r.Info)] = true
		}
	}
	for i, s := range ef.Sections {
		if !relocated[i] || s.Flags&elf.SHF_ALLOC == 0 || s.Addr == 0 || s.FileSize == 0 {
			continue
		}
		if !inImage(s) {
			warn("section %s [%#x+%#x] runs past the image (%d bytes)", s.Name, s.Offset, s.FileSize, len(img))
			continue
		}
		data := img[s.Offset : s.Offset+s.FileSize]
		if err := mem.ReadMem(s.Addr, data); err != nil {
			clear(data)
			warn("section %s: its relocated copy at %#x is unreadable, the section is not used: %v", s.Name, s.Addr, err)
		}
	}
	return warnings
}

// locateSymbols adds each symbol's section address to its value in tab,
// the raw entries of a symbol table. Symbols with a section index beyond
// the section headers, or whose address would wrap, become undefined;
// their number is returned.
func locateSymbols(tab []byte, ef *elf.File) (bad int) {
	order := ef.ByteOrder
	entSize, valueOff, shndxOff := 24, 8, 6
	if ef.Class == elf.ELFCLASS32 {
		entSize, valueOff, shndxOff = 16, 4, 14
	}
	for e := tab[min(entSize, len(tab)):]; len(e) >= entSize; e = e[entSize:] {
		shndx := elf.SectionIndex(order.Uint16(e[shndxOff:]))
		if shndx == elf.SHN_UNDEF || shndx >= elf.SHN_LORESERVE {
			continue // undefined, absolute, common: no section to add
		}
		ok := int(shndx) < len(ef.Sections)
		if ok {
			ok = addSectionAddr(e[valueOff:], order, entSize == 24, ef.Sections[shndx].Addr)
		}
		if !ok {
			order.PutUint16(e[shndxOff:], uint16(elf.SHN_UNDEF))
			bad++
		}
	}
	return bad
}

// addSectionAddr adds base to the symbol value at v (8 or 4 bytes),
// reporting false when the sum does not fit.
func addSectionAddr(v []byte, order binary.ByteOrder, wide bool, base uint64) bool {
	if wide {
		x := order.Uint64(v)
		if x+base < x {
			return false
		}
		order.PutUint64(v, x+base)
		return true
	}
	x := uint64(order.Uint32(v)) + base
	if x > 0xffffffff {
		return false
	}
	order.PutUint32(v, uint32(x))
	return true
}

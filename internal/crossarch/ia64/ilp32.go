package ia64

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
)

// No installed assembler writes ELF32 IA-64 (gas here knows only
// elf64-ia64-*), so ILP32 unwind tables — HP-UX's 32-bit data model —
// are made by converting a linked ELF64 program: the same code and
// descriptors, the table's three words per entry as 4-byte words, each
// info block's length counted in 4-byte words (ulen doubles) and its
// personality word 4 bytes. That is the ILP32 format as binutils'
// readelf reads it (eh_addr_size = 4 for ELFCLASS32), so readelf -u of
// the result is an independent reading of the same entries.

// ilp32Base is where the converted text segment is placed (HP-UX ILP32
// text lives in the first quadrant).
const ilp32Base = 0x04000000

// ToILP32 writes dst, an ELF32 IA-64 executable in src's byte order with
// src's .text, unwind info and unwind table (segment-relative offsets
// kept), an HP-UX EI_OSABI and one PT_LOAD.
func ToILP32(src, dst string) error {
	f, err := elf.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	text, info, table := f.Section(".text"), f.Section(".IA_64.unwind_info"), f.Section(".IA_64.unwind")
	if text == nil || info == nil || table == nil {
		return fmt.Errorf("%s: needs .text, .IA_64.unwind_info and .IA_64.unwind", src)
	}
	var seg *elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && text.Addr >= p.Vaddr && text.Addr-p.Vaddr < p.Memsz {
			seg = p
		}
	}
	if seg == nil {
		return fmt.Errorf("%s: .text in no PT_LOAD", src)
	}
	o := f.ByteOrder
	code, err := text.Data()
	if err != nil {
		return err
	}
	infoData, err := info.Data()
	if err != nil {
		return err
	}
	tab, err := table.Data()
	if err != nil {
		return err
	}
	textOff := text.Addr - seg.Vaddr // offset in the segment, kept
	infoOff := (textOff + uint64(len(code)) + 7) &^ 7
	infoBase := info.Addr - seg.Vaddr

	// Info blocks in table order; each one's LSDA runs to the next block.
	type ent struct{ start, end, info uint64 }
	var ents []ent
	for off := 0; off+24 <= len(tab); off += 24 {
		e := ent{o.Uint64(tab[off:]), o.Uint64(tab[off+8:]), o.Uint64(tab[off+16:])}
		if e.start|e.end|e.info != 0 {
			ents = append(ents, e)
		}
	}
	starts := []uint64{uint64(len(infoData))}
	for _, e := range ents {
		starts = append(starts, e.info-infoBase)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	next := func(p uint64) uint64 {
		for _, s := range starts {
			if s > p {
				return s
			}
		}
		return uint64(len(infoData))
	}
	var newInfo bytes.Buffer
	moved := map[uint64]uint64{}
	for _, e := range ents {
		p := e.info - infoBase
		if _, done := moved[p]; done {
			continue
		}
		if p+8 > uint64(len(infoData)) {
			return fmt.Errorf("info block at %#x past its section", p)
		}
		for newInfo.Len()%8 != 0 {
			newInfo.WriteByte(0)
		}
		moved[p] = infoOff + uint64(newInfo.Len())
		stamp := o.Uint64(infoData[p:])
		ulen := stamp & 0xffffffff
		n := ulen * 8
		if p+8+n > uint64(len(infoData)) {
			return fmt.Errorf("info block at %#x: %d descriptor bytes past its section", p, n)
		}
		binary.Write(&newInfo, o, stamp&^0xffffffff|ulen*2)
		newInfo.Write(infoData[p+8 : p+8+n])
		if stamp>>32&3 != 0 && p+8+n+8 <= uint64(len(infoData)) {
			binary.Write(&newInfo, o, uint32(o.Uint64(infoData[p+8+n:])))
			newInfo.Write(infoData[p+8+n+8 : next(p+8+n)])
		}
	}
	tableOff := (infoOff + uint64(newInfo.Len()) + 7) &^ 7
	var newTab bytes.Buffer
	for _, e := range ents {
		binary.Write(&newTab, o, uint32(e.start))
		binary.Write(&newTab, o, uint32(e.end))
		binary.Write(&newTab, o, uint32(moved[e.info-infoBase]))
	}
	shstr := []byte("\x00.text\x00.IA_64.unwind_info\x00.IA_64.unwind\x00.shstrtab\x00")
	shstrOff := tableOff + uint64(newTab.Len())
	segEnd := shstrOff
	shOff := (shstrOff + uint64(len(shstr)) + 3) &^ 3

	img := make([]byte, shOff)
	copy(img[textOff:], code)
	copy(img[infoOff:], newInfo.Bytes())
	copy(img[tableOff:], newTab.Bytes())
	copy(img[shstrOff:], shstr)
	var hdr bytes.Buffer
	ident := [16]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS32), byte(elf.ELFDATA2LSB), 1, byte(elf.ELFOSABI_HPUX)}
	if o == binary.BigEndian {
		ident[5] = byte(elf.ELFDATA2MSB)
	}
	hdr.Write(ident[:])
	for _, v := range []any{uint16(elf.ET_EXEC), uint16(elf.EM_IA_64), uint32(1), uint32(ilp32Base + textOff), uint32(52), uint32(shOff),
		uint32(0), uint16(52), uint16(32), uint16(1), uint16(40), uint16(5), uint16(4)} {
		binary.Write(&hdr, o, v)
	}
	for _, v := range []uint32{uint32(elf.PT_LOAD), 0, ilp32Base, ilp32Base, uint32(segEnd), uint32(segEnd), uint32(elf.PF_R | elf.PF_X), 0x10000} {
		binary.Write(&hdr, o, v)
	}
	copy(img, hdr.Bytes())
	var sh bytes.Buffer
	secs := []struct {
		name, typ, flags, addr, off, size, link uint32
	}{
		{},
		{1, uint32(elf.SHT_PROGBITS), uint32(elf.SHF_ALLOC | elf.SHF_EXECINSTR), uint32(ilp32Base + textOff), uint32(textOff), uint32(len(code)), 0},
		{7, uint32(elf.SHT_PROGBITS), uint32(elf.SHF_ALLOC), uint32(ilp32Base + infoOff), uint32(infoOff), uint32(newInfo.Len()), 0},
		{26, 0x70000001, uint32(elf.SHF_ALLOC | elf.SHF_LINK_ORDER), uint32(ilp32Base + tableOff), uint32(tableOff), uint32(newTab.Len()), 1},
		{40, uint32(elf.SHT_STRTAB), 0, 0, uint32(shstrOff), uint32(len(shstr)), 0},
	}
	for _, s := range secs {
		for _, v := range []uint32{s.name, s.typ, s.flags, s.addr, s.off, s.size, s.link, 0, 8, 0} {
			binary.Write(&sh, o, v)
		}
	}
	return os.WriteFile(dst, append(img, sh.Bytes()...), 0o644)
}

package hppa

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"path/filepath"
)

// LinuxCore64 writes the machine's state as a Linux ELF64 parisc core
// (ELFOSABI_LINUX, EM_PARISC): NT_PRSTATUS of 760 bytes with pr_reg (80
// eight-byte slots: PSW, gr1..gr31, ..., iaoq at 40/41) at 112, NT_PRPSINFO
// (136), NT_FILE naming exe at its PT_LOAD addresses, and a PT_LOAD per
// memory run; runs inside the executable's segments are executable.
func LinuxCore64(m *Machine, exe *elf.File, exePath string, sig int) []byte {
	var notes bytes.Buffer
	note := func(typ uint32, desc []byte) {
		binary.Write(&notes, be, []uint32{5, uint32(len(desc)), typ})
		notes.WriteString("CORE\x00\x00\x00\x00")
		notes.Write(desc)
		for notes.Len()%4 != 0 {
			notes.WriteByte(0)
		}
	}
	pr := make([]byte, 760)
	be.PutUint32(pr[0:], uint32(sig))
	be.PutUint16(pr[12:], uint16(sig))
	be.PutUint32(pr[32:], 1)
	for r := 1; r < 32; r++ {
		be.PutUint64(pr[112+8*r:], m.GR[r])
	}
	be.PutUint64(pr[112+8*40:], m.PC|3)
	be.PutUint64(pr[112+8*41:], m.NPC|3)
	note(1, pr)
	ps := make([]byte, 136)
	copy(ps[40:55], filepath.Base(exePath))
	copy(ps[56:135], exePath)
	note(3, ps)
	var nf bytes.Buffer
	var loads []elf.ProgHeader
	for _, p := range exe.Progs {
		if p.Type == elf.PT_LOAD {
			loads = append(loads, p.ProgHeader)
		}
	}
	binary.Write(&nf, be, []uint64{uint64(len(loads)), PageSize})
	for _, p := range loads {
		start := p.Vaddr &^ (PageSize - 1)
		binary.Write(&nf, be, []uint64{start, (p.Vaddr + p.Memsz + PageSize - 1) &^ (PageSize - 1), (p.Off &^ (PageSize - 1)) / PageSize})
	}
	for range loads {
		nf.WriteString(exePath + "\x00")
	}
	note(0x46494c45, nf.Bytes())

	runs := m.Runs()
	nph := 1 + len(runs)
	hdr := make([]byte, 64+56*nph)
	copy(hdr, "\x7fELF\x02\x02\x01\x03")
	be.PutUint16(hdr[16:], uint16(elf.ET_CORE))
	be.PutUint16(hdr[18:], uint16(elf.EM_PARISC))
	be.PutUint32(hdr[20:], 1)
	be.PutUint64(hdr[32:], 64)
	be.PutUint16(hdr[52:], 64)
	be.PutUint16(hdr[54:], 56)
	be.PutUint16(hdr[56:], uint16(nph))
	ph := func(i int, typ uint32, flags elf.ProgFlag, off, vaddr, size uint64) {
		p := hdr[64+56*i:]
		be.PutUint32(p[0:], typ)
		be.PutUint32(p[4:], uint32(flags))
		be.PutUint64(p[8:], off)
		be.PutUint64(p[16:], vaddr)
		be.PutUint64(p[32:], size)
		be.PutUint64(p[40:], size)
		be.PutUint64(p[48:], 4)
	}
	body := append([]byte(nil), notes.Bytes()...)
	ph(0, uint32(elf.PT_NOTE), 0, uint64(len(hdr)), 0, uint64(len(body)))
	for i, r := range runs {
		flags := elf.PF_R | elf.PF_W
		for _, p := range loads {
			if r[0] < p.Vaddr+p.Memsz && p.Vaddr < r[1] && p.Flags&elf.PF_X != 0 {
				flags |= elf.PF_X
			}
		}
		data := make([]byte, r[1]-r[0])
		m.Read(r[0], data)
		ph(1+i, uint32(elf.PT_LOAD), flags, uint64(len(hdr)+len(body)), r[0], uint64(len(data)))
		body = append(body, data...)
	}
	return append(hdr, body...)
}

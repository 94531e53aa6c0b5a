package hppa

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"path/filepath"

	"github.com/coreunwind/coreunwind/internal/elfcore"
)

// LinuxCore64 writes the machine's state as a Linux ELF64 parisc core
// (ELFOSABI_LINUX, EM_PARISC): NT_PRSTATUS of 760 bytes with pr_reg (80
// eight-byte slots: PSW, gr1..gr31, ..., iaoq at 40/41) at 112, NT_PRPSINFO
// (136), NT_FILE naming exe at its PT_LOAD addresses, and a PT_LOAD per
// memory run; runs inside the executable's segments are executable.
func LinuxCore64(m *Machine, exe *elf.File, exePath string, sig int) []byte {
	core := &elfcore.File{Class: elf.ELFCLASS64, Order: be, Machine: elf.EM_PARISC, OSABI: elf.ELFOSABI_LINUX, Align: 4}
	note := func(typ uint32, desc []byte) {
		core.Notes = append(core.Notes, elfcore.Note{Name: "CORE", Type: typ, Desc: desc})
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

	for _, r := range m.Runs() {
		flags := elf.PF_R | elf.PF_W
		for _, p := range loads {
			if r[0] < p.Vaddr+p.Memsz && p.Vaddr < r[1] && p.Flags&elf.PF_X != 0 {
				flags |= elf.PF_X
			}
		}
		data := make([]byte, r[1]-r[0])
		m.Read(r[0], data)
		core.Segments = append(core.Segments, elfcore.Segment{Flags: flags, Vaddr: r[0], Data: data})
	}
	return core.Bytes()
}

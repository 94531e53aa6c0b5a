package ia64

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"path/filepath"
	"strconv"

	"github.com/coreunwind/coreunwind/internal/elfcore"
)

// ShadowFrame is what the interpreter knew about a caller when it made a
// call: the truth a walk of the core must recover.
type ShadowFrame struct {
	IP, SP, BSP, CFM uint64 // BSP: beginning of the caller's frame
	R4to7            [4]uint64
	B1to5            [5]uint64
	PR, UNAT, LC     uint64
}

// Linux ia64 pr_reg slots (elf_gregset_t, arch/ia64/include/asm/elf.h).
const (
	slotNaT = 32
	slotPR  = 33
	slotB0  = 34
	slotIP  = 42
	slotCFM = 43
	slotPSR = 44
	slotRSC = 45
	slotBSP = 46
	slotBSS = 47
	slotRNT = 48
	slotUNT = 50
	slotFPS = 51
	slotPFS = 52
	slotLC  = 53
	slotEC  = 54
)

// GRegs is the machine's state as a Linux core's pr_reg: ip is the
// bundle address with the slot in psr.ri (the kernel's convention), and
// ar.bsp is the end of the current frame.
func (m *Machine) GRegs() []byte {
	b := make([]byte, 128*8)
	put := func(slot int, v uint64) { m.Order.PutUint64(b[slot*8:], v) }
	for i := 1; i < 32; i++ {
		put(i, m.GR[i])
	}
	put(slotPR, m.PR|1)
	for i := 0; i < 8; i++ {
		put(slotB0+i, m.BR[i])
	}
	put(slotIP, m.IP&^0xf)
	put(slotCFM, m.CFM)
	put(slotPSR, (m.IP&3)<<41)
	put(slotRSC, m.AR["rsc"])
	end := RSESkip(m.BSP, m.sof())
	put(slotBSP, end)
	put(slotBSS, end)
	put(slotRNT, m.AR["rnat"])
	put(slotUNT, m.AR["unat"])
	put(slotFPS, m.AR["fpsr"])
	put(slotPFS, m.AR["pfs"])
	put(slotLC, m.AR["lc"])
	put(slotEC, m.AR["ec"])
	return b
}

// FPRegs is NT_PRFPREG: f0..f127, 16 bytes each (significand, then
// sign and exponent).
func (m *Machine) FPRegs() []byte {
	b := make([]byte, 128*16)
	for i := range m.FR {
		m.Order.PutUint64(b[16*i:], m.FR[i])
		m.Order.PutUint64(b[16*i+8:], 0x1003e)
	}
	return b
}

// WriteLinuxCore writes the machine's state as a Linux ia64 core (ELF64,
// the machine's byte order): NT_PRSTATUS with pr_reg, NT_PRPSINFO,
// NT_PRFPREG and NT_FILE naming exe, and a PT_LOAD per memory region.
func (m *Machine) WriteLinuxCore(path, exe string, pid int, signo int) error {
	o := m.Order
	prs := make([]byte, 1144)
	o.PutUint32(prs[0:], uint32(signo))
	o.PutUint16(prs[12:], uint16(signo))
	o.PutUint32(prs[32:], uint32(pid))
	copy(prs[112:], m.GRegs())
	o.PutUint32(prs[1136:], 1)
	psi := make([]byte, 136)
	copy(psi[40:56], filepath.Base(exe))
	copy(psi[56:136], filepath.Base(exe))
	var files bytes.Buffer
	var names bytes.Buffer
	n := 0
	for _, r := range m.Mem {
		if r.Name == exe {
			n++
		}
	}
	w64 := func(b *bytes.Buffer, v uint64) { binary.Write(b, o, v) }
	w64(&files, uint64(n))
	w64(&files, 1)
	for _, r := range m.Mem {
		if r.Name == exe {
			w64(&files, r.Base)
			w64(&files, r.Base+uint64(len(r.Data)))
			w64(&files, r.FileOff) // page size 1: in bytes
			abs, _ := filepath.Abs(exe)
			names.WriteString(abs)
			names.WriteByte(0)
		}
	}
	files.Write(names.Bytes())
	notes := []elfcore.Note{{Name: "CORE", Type: 1, Desc: prs}, {Name: "CORE", Type: 2, Desc: m.FPRegs()}, {Name: "CORE", Type: 3, Desc: psi}, {Name: "CORE", Type: 0x46494c45, Desc: files.Bytes()}}
	return writeCore(path, o, elf.ELFOSABI_NONE, notes, m.Mem)
}

// writeCore writes an ELF64 ET_CORE of IA-64: notes, then a PT_LOAD per
// memory region.
func writeCore(path string, o binary.ByteOrder, abi elf.OSABI, notes []elfcore.Note, mem []*Region) error {
	f := &elfcore.File{Class: elf.ELFCLASS64, Order: o, Machine: elf.EM_IA_64, OSABI: abi, Notes: notes}
	for _, r := range mem {
		f.Segments = append(f.Segments, elfcore.Segment{Flags: r.Flags, Vaddr: r.Base, Data: r.Data})
	}
	return f.Write(path)
}

// WriteGDBCore writes the machine's state as a core gdb-multiarch can
// read on a non-IA-64 host. bfd has no parser for the ia64 NT_PRSTATUS,
// so gdb finds no registers in a real Linux ia64 core; its NetBSD note
// reader, however, turns a note named "NetBSD-CORE@<lwp>" of type 33
// (PT_GETREGS) into a .reg section of any size, and type 35 into .reg2,
// and gdb applies its GNU/Linux ia64 register map to them. So the
// pr_reg bytes in such a note give gdb exactly the Linux register
// values; memory is the same as in WriteLinuxCore.
func (m *Machine) WriteGDBCore(path string, lwp int) error {
	name := "NetBSD-CORE@" + strconv.Itoa(lwp)
	notes := []elfcore.Note{{Name: name, Type: 33, Desc: m.GRegs()}, {Name: name, Type: 35, Desc: m.FPRegs()}}
	return writeCore(path, m.Order, elf.ELFOSABI_NONE, notes, m.Mem)
}

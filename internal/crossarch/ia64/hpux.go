package ia64

import (
	"debug/elf"
	"path/filepath"

	"github.com/coreunwind/coreunwind/internal/elfcore"
)

// HP-UX ELF64 core program header types (PT_LOOS + n, include/elf/hppa.h;
// IA-64 HP-UX cores are taken to use the same numbering).
const (
	ptHPCoreVersion  elf.ProgType = 0x60000002
	ptHPCoreKernel   elf.ProgType = 0x60000003
	ptHPCoreComm     elf.ProgType = 0x60000004
	ptHPCoreProc     elf.ProgType = 0x60000005
	ptHPCoreLoadable elf.ProgType = 0x60000006
	ptHPCoreStack    elf.ProgType = 0x60000007
	ptHPCoreMMF      elf.ProgType = 0x60000009
)

// The IA-64 save_state_t layout coreunwind assumes (ia64/hpuxregs.go
// explains why it is an assumption): a header of flags, NaT bits and the
// stop reason, then gdb's ttrace uregs in their order. Kept here as a
// separate table so that the reader is checked against a second writing
// of the layout, not against itself.
const (
	ssReason   = 0x010
	ssGR       = 0x020
	ssBR       = 0x120
	ssPR       = 0x160
	ssIP       = 0x168
	ssIPSR     = 0x170
	ssCFM      = 0x178
	ssRSC      = 0x180
	ssBSP      = 0x188
	ssBSPSTORE = 0x190
	ssRNAT     = 0x198
	ssUNAT     = 0x1a8
	ssFPSR     = 0x1b0
	ssPFS      = 0x1b8
	ssLC       = 0x1c0
	ssEC       = 0x1c8
	ssFR       = 0x200
	ssSize     = ssFR + 128*16
)

// HPUXSaveState is the machine's state as an HP-UX IA-64 save area. A
// thread stopped in a system call (inSyscall) has reason 0 and, its
// outputs having become the kernel's inputs, an ar.bsp sol registers
// past its frame's beginning; otherwise ar.bsp is the frame's end.
func (m *Machine) HPUXSaveState(inSyscall bool) []byte {
	b := make([]byte, ssSize)
	put := func(off int, v uint64) { m.Order.PutUint64(b[off:], v) }
	for i := 1; i < 32; i++ {
		put(ssGR+8*i, m.GR[i])
	}
	for i := 0; i < 8; i++ {
		put(ssBR+8*i, m.BR[i])
	}
	put(ssPR, m.PR|1)
	put(ssIP, m.IP&^0xf)
	put(ssIPSR, (m.IP&3)<<41)
	put(ssCFM, m.CFM)
	put(ssRSC, m.AR["rsc"])
	end := RSESkip(m.BSP, m.sof())
	if inSyscall {
		end = RSESkip(m.BSP, m.sol())
	} else {
		put(ssReason, 1) // any trap: not a system call
	}
	put(ssBSP, end)
	put(ssBSPSTORE, end)
	put(ssRNAT, m.AR["rnat"])
	put(ssUNAT, m.AR["unat"])
	put(ssFPSR, m.AR["fpsr"])
	put(ssPFS, m.AR["pfs"])
	put(ssLC, m.AR["lc"])
	put(ssEC, m.AR["ec"])
	for i, v := range m.FR {
		put(ssFR+16*i, 0x1003e) // sign and exponent of an integer value
		put(ssFR+16*i+8, v)
	}
	return b
}

// WriteHPUXCore writes the machine's state as an HP-UX IA-64 core: ELF64
// in the machine's byte order (big-endian for HP-UX code), EI_OSABI 0 as
// HP-UX kernels write it, PT_HP_CORE_VERSION, KERNEL ("HP-UX"), COMM, one
// PT_HP_CORE_PROC (sig, trap_type, save area), the executable's segments
// as PT_HP_CORE_MMF and the stacks as PT_HP_CORE_STACK.
func (m *Machine) WriteHPUXCore(path, exe string, signo int, inSyscall bool) error {
	o := m.Order
	ss := m.HPUXSaveState(inSyscall)
	proc := make([]byte, 8+len(ss))
	o.PutUint32(proc[0:], uint32(int32(signo)))
	o.PutUint32(proc[4:], 0)
	copy(proc[8:], ss)
	ver := make([]byte, 4)
	o.PutUint32(ver, 1)
	comm := make([]byte, 16)
	copy(comm, filepath.Base(exe))
	f := &elfcore.File{Class: elf.ELFCLASS64, Order: o, Machine: elf.EM_IA_64, OSABI: elf.ELFOSABI_NONE, Flags: 0x10,
		Segments: []elfcore.Segment{
			{Type: ptHPCoreVersion, Flags: elf.PF_R, Data: ver},
			{Type: ptHPCoreKernel, Flags: elf.PF_R, Data: []byte("HP-UX\x00interp\x00B.11.31\x00U\x00ia64\x00")},
			{Type: ptHPCoreComm, Flags: elf.PF_R, Data: comm},
			{Type: ptHPCoreProc, Flags: elf.PF_R, Data: proc},
		}}
	for _, r := range m.Mem {
		t := ptHPCoreStack
		if r.Name == exe {
			t = ptHPCoreMMF
		} else if r.Name != "[stack]" && r.Name != "[rbs]" {
			t = ptHPCoreLoadable
		}
		f.Segments = append(f.Segments, elfcore.Segment{Type: t, Flags: r.Flags, Vaddr: r.Base, Data: r.Data})
	}
	return f.Write(path)
}

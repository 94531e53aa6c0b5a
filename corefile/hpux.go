package corefile

// HP-UX cores, shared by the two HP-UX formats coreunwind reads:
//
//   - ELF64 cores (PA-RISC 2.0W and IA-64): ET_CORE with PT_HP_CORE_*
//     program headers instead of notes (hpux_elf.go);
//   - the 32-bit PA-RISC "corehead" format: a plain sequence of
//     16-byte-headed records, no magic (hpux_corehead.go).
//
// Both describe a thread by a proc_info record: sig (int32, -1 in threads
// that did not take the signal), trap_type (uint32), then the machine's
// register save area, then (HP-UX 10.30+) the lwpid at 0x488 on PA-RISC.
// The container code is arch-neutral: a Thread's GRegs is the save area
// (proc_info from byte 8 on), and Thread.Notes[NTHPUXProcInfo] the whole
// record, for the arch packages to decode (pa64: save_state_t; ia64: the
// layout a real IA-64 HP-UX core uses, which no public source
// establishes).

import (
	"debug/elf"
	"encoding/binary"
	"sort"
	"strings"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// NTHPUXProcInfo is the key under which an HP-UX core's Thread.Notes holds
// the thread's whole proc_info record (sig, trap_type, save area, lwpid).
// HP-UX cores have no notes; the value ("HPUX") is chosen not to collide
// with any ELF note type.
const NTHPUXProcInfo uint32 = 0x48505558

// HPUXInfo is what an HP-UX core says about the process beyond threads
// and memory.
type HPUXInfo struct {
	// Kernel is the kernel identification (PT_HP_CORE_KERNEL or
	// CORE_KERNEL): NUL-separated strings, the first "HP-UX".
	Kernel []string
	// Version is the core format version (PT_HP_CORE_VERSION,
	// CORE_FORMAT); 0 if absent.
	Version uint32
	// UTSName: PT_HP_CORE_UTSNAME's NUL-separated strings, if present.
	UTSName []string
	// Exec is CORE_EXEC's SOM exec header (32-bit corehead cores only).
	Exec *HPUXExec
}

// HPUXExec is the struct proc_exec of a corehead core: the executable's
// magic number and SOM exec auxiliary header.
type HPUXExec struct {
	Magic                            uint32
	TSize, TMem, TFile               uint32 // text: size, address, file offset
	DSize, DMem, DFile, BSize, Entry uint32
	Flags                            uint32
	Command                          string
}

// proc_info offsets (hpux-cores.md §2.3).
const (
	procSigOff       = 0
	procTrapOff      = 4
	procSaveStateOff = 8
	procLWPIDOff     = 0x488 // PA-RISC: after the 1152-byte save_state
	// hpuxMinProc: sig, trap_type and the PA-89 (PA 1.1) save state,
	// the smallest record gdb accepted.
	hpuxMinProc = 8 + 512
)

// hpuxThread decodes one proc_info record into a Thread; index numbers
// threads without an lwpid (1-based, in file order).
func hpuxThread(rec []byte, order binary.ByteOrder, machine elf.Machine, index int) (*Thread, int32) {
	sig := int32(order.Uint32(rec[procSigOff:]))
	th := &Thread{
		GRegs: rec[procSaveStateOff:],
		Notes: map[uint32][]byte{NTHPUXProcInfo: rec},
	}
	if machine == elf.EM_PARISC && len(rec) >= procLWPIDOff+4 {
		th.TID = int(order.Uint32(rec[procLWPIDOff:]))
		th.GRegs = rec[procSaveStateOff:procLWPIDOff]
	}
	if th.TID == 0 {
		th.TID = index
	}
	if sig > 0 {
		th.Signal = int(sig)
	}
	return th, sig
}

// finishHPUXThreads picks the crashing thread (sig != -1) and the signal.
func (c *Core) finishHPUXThreads() {
	if len(c.Threads) == 0 {
		c.warnf("no proc_info record: the core has no threads")
		return
	}
	c.CrashedTID = c.Threads[0].TID
	for _, t := range c.Threads {
		if t.Signal != 0 {
			c.CrashedTID = t.TID
			c.Signal = &Signal{Number: t.Signal, machine: c.Machine}
			return
		}
	}
	c.warnf("no thread records a signal (a forced dump?): reporting thread %d as the crashed one", c.CrashedTID)
}

// cStrings splits NUL-separated strings, dropping empty ones.
func cStrings(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// hpuxExecutableMappings describes the executable named on the command
// line as mappings at its link-time addresses: HP-UX cores record no
// file mappings, and HP-UX executables are not position-independent.
func (c *Core) hpuxExecutableMappings(opts Options) {
	if opts.Executable == "" {
		return
	}
	f, err := regfile.OpenELF(opts.Executable)
	if err != nil {
		c.warnf("executable %s: %v", opts.Executable, err)
		return
	}
	defer f.Close()
	if f.Machine != c.Machine {
		c.warnf("executable %s is %v, the core is %v", opts.Executable, f.Machine, c.Machine)
		return
	}
	added := false
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if p.Flags&elf.PF_X != 0 && p.Filesz > 0 && c.findRange(p.Vaddr) < 0 {
			// HP-UX cores do not hold the program's text: describe it
			// as a segment without bytes in the core (as Linux cores do
			// for file-backed text), so it counts as code and reads
			// fall through to the executable.
			c.addSegment(progHeader{Type: elf.PT_LOAD, Flags: p.Flags, Vaddr: p.Vaddr, Memsz: p.Filesz})
			added = true
		}
		// Only the file-backed part: bss is not in the file.
		if p.Filesz > 0 {
			c.Mappings = append(c.Mappings, Mapping{Start: p.Vaddr, End: p.Vaddr + p.Filesz, Offset: p.Off, Path: opts.Executable})
		}
	}
	if added {
		sort.SliceStable(c.ranges, func(i, j int) bool { return c.ranges[i].start < c.ranges[j].start })
	}
}

package corefile

import (
	"bytes"
	"debug/elf"
	"fmt"
	"sort"
)

// HP-UX ELF64 core program header types (include/elf/hppa.h: PT_LOOS +
// n). IA-64 HP-UX cores are assumed to use the same numbering.
const (
	PT_HP_CORE_NONE     elf.ProgType = 0x60000001
	PT_HP_CORE_VERSION  elf.ProgType = 0x60000002
	PT_HP_CORE_KERNEL   elf.ProgType = 0x60000003
	PT_HP_CORE_COMM     elf.ProgType = 0x60000004
	PT_HP_CORE_PROC     elf.ProgType = 0x60000005
	PT_HP_CORE_LOADABLE elf.ProgType = 0x60000006
	PT_HP_CORE_STACK    elf.ProgType = 0x60000007
	PT_HP_CORE_SHM      elf.ProgType = 0x60000008
	PT_HP_CORE_MMF      elf.ProgType = 0x60000009
	PT_HP_CORE_UTSNAME  elf.ProgType = 0x60000015
)

// maxHPUXInfoSeg bounds the small descriptive segments (kernel, comm,
// utsname) that are copied into the Core.
const maxHPUXInfoSeg = 4096

// isHPUXELFCore reports whether an ELF core is an HP-UX one: EI_OSABI says
// so (HP-UX's own kernel writes 0 there, binutils wants 1), or its program
// headers include PT_HP_CORE_PROC or PT_HP_CORE_KERNEL.
func isHPUXELFCore(h *fileHeader, phs []progHeader) bool {
	if h.OSABI == elf.ELFOSABI_HPUX {
		return true
	}
	for _, ph := range phs {
		if ph.Type == PT_HP_CORE_PROC || ph.Type == PT_HP_CORE_KERNEL {
			return true
		}
	}
	return false
}

// loadHPUXELF reads an HP-UX ELF64 (or ELF32) core: one thread per
// PT_HP_CORE_PROC, memory from LOADABLE, STACK, MMF and SHM (bfd leaves
// SHM out; its bytes are process memory all the same).
// A core with no readable PT_HP_CORE_PROC segment is refused: it has no
// thread to report.
func (c *Core) loadHPUXELF(phs []progHeader, opts Options) error {
	c.Format, c.OS = "elf-hpux", "hpux"
	c.HPUX = &HPUXInfo{}
	for _, ph := range phs {
		raw, whole := sliceAt(c.data, ph.Off, ph.Filesz)
		switch ph.Type {
		case PT_HP_CORE_LOADABLE, PT_HP_CORE_STACK, PT_HP_CORE_MMF, PT_HP_CORE_SHM, elf.PT_LOAD:
			c.addSegment(ph)
			continue
		case PT_HP_CORE_NONE:
			continue
		}
		if !whole {
			c.warnf("%v segment at offset %#x truncated: %d of %d bytes present", hpuxSegName(ph.Type), ph.Off, len(raw), ph.Filesz)
		}
		switch ph.Type {
		case PT_HP_CORE_VERSION:
			if len(raw) >= 4 {
				c.HPUX.Version = c.order.Uint32(raw)
			}
		case PT_HP_CORE_KERNEL:
			c.HPUX.Kernel = cStrings(raw[:min(len(raw), maxHPUXInfoSeg)])
			if len(c.HPUX.Kernel) == 0 || c.HPUX.Kernel[0] != "HP-UX" {
				c.warnf("kernel segment does not start with \"HP-UX\"")
			}
		case PT_HP_CORE_COMM:
			c.Comm = cString(raw[:min(len(raw), maxHPUXInfoSeg)])
		case PT_HP_CORE_UTSNAME:
			c.HPUX.UTSName = cStrings(raw[:min(len(raw), maxHPUXInfoSeg)])
		case PT_HP_CORE_PROC:
			if len(raw) < hpuxMinProc {
				c.warnf("proc segment at offset %#x: %d bytes, want at least %d: thread skipped", ph.Off, len(raw), hpuxMinProc)
				continue
			}
			// Copied: registers outlive the core's mapping.
			th, _ := hpuxThread(bytes.Clone(raw), c.order, c.Machine, len(c.Threads)+1)
			c.Threads = append(c.Threads, th)
		}
	}
	if len(c.Threads) == 0 {
		return fmt.Errorf("%w: HP-UX ELF core without a readable PT_HP_CORE_PROC segment", ErrNotCore)
	}
	sort.SliceStable(c.ranges, func(i, j int) bool { return c.ranges[i].start < c.ranges[j].start })
	c.finishHPUXThreads()
	c.hpuxExecutableMappings(opts)
	c.findModules(opts)
	if c.Executable = opts.Executable; c.Executable == "" {
		c.Executable = c.Comm
	}
	return nil
}

// hpuxSegName names a PT_HP_CORE_* type for messages.
func hpuxSegName(t elf.ProgType) string {
	names := map[elf.ProgType]string{
		PT_HP_CORE_NONE: "PT_HP_CORE_NONE", PT_HP_CORE_VERSION: "PT_HP_CORE_VERSION", PT_HP_CORE_KERNEL: "PT_HP_CORE_KERNEL",
		PT_HP_CORE_COMM: "PT_HP_CORE_COMM", PT_HP_CORE_PROC: "PT_HP_CORE_PROC", PT_HP_CORE_LOADABLE: "PT_HP_CORE_LOADABLE",
		PT_HP_CORE_STACK: "PT_HP_CORE_STACK", PT_HP_CORE_SHM: "PT_HP_CORE_SHM", PT_HP_CORE_MMF: "PT_HP_CORE_MMF",
		PT_HP_CORE_UTSNAME: "PT_HP_CORE_UTSNAME",
	}
	if n, ok := names[t]; ok {
		return n
	}
	return fmt.Sprintf("p_type %#x", uint32(t))
}

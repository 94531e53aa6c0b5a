package corefile

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/coreunwind/coreunwind/minidump"
)

// A minidump (Breakpad's or Crashpad's) is read into a Core like any core:
// its memory list becomes the memory ranges (file offsets into the dump),
// its threads' contexts the elf_gregset_t the arch packages decode, its
// exception stream the signal, /proc/PID/maps the file mappings and the
// module list's CodeView records the build IDs by which the modules'
// files are found and checked (a minidump rarely holds the ELF headers
// a core's build IDs are read from).

// minidumpFormat is the report schema's name for a minidump.
const minidumpFormat = "minidump"

// dumpRequested is Breakpad's exception code for a dump written on
// request, without a signal (MD_EXCEPTION_CODE_LIN_DUMP_REQUESTED).
const dumpRequested = 0xffffffff

// loadMinidump decodes a minidump held in data.
func loadMinidump(data []byte, opts Options, started **Core) (*Core, error) {
	d, err := minidump.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCore, err)
	}
	cpu := minidumpCPU(d)
	machine := cpu.Machine()
	class := elf.ELFCLASS64
	if cpu.PtrSize() == 4 {
		class = elf.ELFCLASS32
	}
	c := &Core{
		Format:     minidumpFormat,
		OS:         "linux",
		Machine:    machine,
		Arch:       ArchName(machine, class, binary.LittleEndian),
		order:      binary.LittleEndian,
		ptrSize:    max(cpu.PtrSize(), 4),
		data:       data,
		fileStatus: map[string]string{},
	}
	*started = c
	if d.System != nil && d.System.Platform != minidump.PlatformLinux {
		c.OS = strings.ToLower(d.System.OS())
	}
	if machine == elf.EM_NONE {
		c.Arch = cpu.String()
		c.warnf("minidump of a %v process: its registers are not read", cpu)
	}
	c.Warnings = append(c.Warnings, d.Warnings...)
	c.minidumpMemory(d)
	c.minidumpThreads(d)
	c.minidumpProcess(d)
	c.minidumpMappings(d)
	c.minidumpAnnotations(d)
	for _, m := range d.Modules {
		if id := m.BuildID(); id != "" {
			c.buildIDs = append(c.buildIDs, recordedID{m.Base, id})
		}
	}
	sort.SliceStable(c.buildIDs, func(i, j int) bool { return c.buildIDs[i].base < c.buildIDs[j].base })
	c.findModules(opts)
	c.findExecutable()
	return c, nil
}

// minidumpCPU is the dump's CPU: the system information's, else the
// first readable context's.
func minidumpCPU(d *minidump.Dump) minidump.CPU {
	if d.System != nil {
		return d.System.CPU
	}
	for _, t := range d.Threads {
		if t.Context.Valid() {
			return t.Context.CPU
		}
	}
	return minidump.CPUUnknown
}

// minidumpMemory makes the memory ranges and the segments (the memory
// map), with the permissions of the mapping each lies in
// (/proc/PID/maps), or where the dump has none, executable within a
// module's image: the validated scan, the frame classifier and the crash
// analysis ask whether an address is code.
func (c *Core) minidumpMemory(d *minidump.Dump) {
	perms := newMinidumpPerms(d)
	for _, r := range d.Memory {
		c.ranges = append(c.ranges, memRange{start: r.Start, end: r.Start + r.Size, off: r.Offset, avail: r.Avail, filesz: r.Size, flags: perms.at(r.Start)})
	}
	sort.SliceStable(c.ranges, func(i, j int) bool { return c.ranges[i].start < c.ranges[j].start })
	// The rest of every mapping, as the kernel's PT_LOAD headers with no
	// bytes dumped: where the process had memory and with which
	// permissions (code is code even when its file is missing), its
	// bytes from the mapped file where one is found.
	dumped := c.ranges
	var rest []memRange
	for _, m := range perms.maps {
		flags := permFlags(m.Perms)
		at := m.Start
		first := sort.Search(len(dumped), func(i int) bool { return dumped[i].end > at })
		for _, r := range dumped[first:] {
			if r.start >= m.End {
				break
			}
			if r.end <= at {
				continue
			}
			if r.start > at {
				rest = append(rest, memRange{start: at, end: r.start, flags: flags})
			}
			at = max(at, r.end)
		}
		if at < m.End {
			rest = append(rest, memRange{start: at, end: m.End, flags: flags})
		}
	}
	c.ranges = append(c.ranges, rest...)
	sort.SliceStable(c.ranges, func(i, j int) bool { return c.ranges[i].start < c.ranges[j].start })
	for _, r := range c.ranges {
		c.Segments = append(c.Segments, Segment{Vaddr: r.start, Memsz: r.end - r.start, Filesz: r.filesz, Offset: r.off, Flags: r.flags})
	}
}

// minidumpPerms finds the permissions of an address by binary search:
// the mappings of /proc/PID/maps sorted and, as the kernel lists them,
// disjoint (a hostile stream's overlapping entries are left out), and
// the modules' images for a dump without maps.
type minidumpPerms struct {
	maps    []minidump.MapsEntry
	modules []minidump.Module
}

func newMinidumpPerms(d *minidump.Dump) *minidumpPerms {
	p := &minidumpPerms{}
	sorted := slices.Clone(d.Linux.Maps)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	prevEnd := uint64(0)
	for _, m := range sorted {
		if m.Start >= prevEnd && m.End > m.Start {
			p.maps = append(p.maps, m)
			prevEnd = m.End
		}
	}
	for _, m := range d.Modules {
		if m.Base+m.Size > m.Base {
			p.modules = append(p.modules, m)
		}
	}
	sort.SliceStable(p.modules, func(i, j int) bool { return p.modules[i].Base < p.modules[j].Base })
	return p
}

func (p *minidumpPerms) at(addr uint64) elf.ProgFlag {
	if i := sort.Search(len(p.maps), func(i int) bool { return p.maps[i].Start > addr }) - 1; i >= 0 && addr < p.maps[i].End {
		return permFlags(p.maps[i].Perms)
	}
	if len(p.maps) == 0 {
		if i := sort.Search(len(p.modules), func(i int) bool { return p.modules[i].Base > addr }) - 1; i >= 0 && addr-p.modules[i].Base < p.modules[i].Size {
			return elf.PF_R | elf.PF_X
		}
	}
	return elf.PF_R | elf.PF_W
}

// permFlags reads a maps line's permissions ("r-xp").
func permFlags(perms string) elf.ProgFlag {
	var f elf.ProgFlag
	for _, c := range perms {
		switch c {
		case 'r':
			f |= elf.PF_R
		case 'w':
			f |= elf.PF_W
		case 'x':
			f |= elf.PF_X
		}
	}
	return f
}

// minidumpThreads makes the threads. The crashing thread's registers are
// the exception stream's context when it has one (the fault's, as
// minidump_stackwalk takes them).
func (c *Core) minidumpThreads(d *minidump.Dump) {
	exc := d.Exception
	for _, t := range d.Threads {
		ctx := t.Context
		th := &Thread{TID: int(t.ID)}
		if exc != nil && exc.ThreadID == t.ID && exc.Context.Valid() {
			ctx = exc.Context
		}
		if g, err := ctx.GRegs(); err == nil {
			th.GRegs, th.FPRegs = g, ctx.FPRegs()
		} else if t.Err == nil && c.Machine != elf.EM_NONE {
			c.warnf("thread %d: %v", t.ID, err)
		}
		c.Threads = append(c.Threads, th)
	}
	if len(c.Threads) == 0 {
		c.warnf("no thread list: the minidump has no threads")
		return
	}
	c.CrashedTID = c.Threads[0].TID
	if exc == nil || exc.Code == dumpRequested {
		return
	}
	// Flags 0 is SI_USER, and also what core2md writes, which knows no
	// si_code: only a nonzero one is believed.
	c.Signal = &Signal{Number: int(int32(exc.Code)), Code: int(int32(exc.Flags)), Detailed: exc.Flags != 0, machine: c.Machine}
	if c.Signal.Code > 0 && c.Signal.isFaultSignal() {
		c.Signal.Addr, c.Signal.HasAddr = exc.Address, true
	}
	if th := c.Thread(int(exc.ThreadID)); th != nil {
		c.CrashedTID = th.TID
		th.Signal = c.Signal.Number
	}
}

// minidumpProcess fills the process facts from the Linux streams.
func (c *Core) minidumpProcess(d *minidump.Dump) {
	for _, a := range d.Linux.Auxv {
		c.Auxv = append(c.Auxv, AuxEntry{Tag: a.Tag, Val: a.Val})
	}
	if v, ok := c.AuxVal(AT_SYSINFO_EHDR); ok {
		c.VDSO = v
	}
	c.CommandLine = strings.Join(d.Linux.CmdLine, " ")
	for _, line := range strings.Split(d.Linux.Status, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		first, _, _ := strings.Cut(v, "\t")
		n, _ := strconv.Atoi(first)
		switch k {
		case "Name":
			c.Comm = v
		case "Tgid":
			c.PID = n
		case "PPid":
			c.PPID = n
		case "Uid":
			c.UID = n
		}
	}
	if c.PID == 0 && len(d.Threads) > 0 {
		// Without status, the first thread is the main one.
		c.PID = int(d.Threads[0].ID)
	}
}

// minidumpMappings makes the file mappings from /proc/PID/maps, or where
// the dump lacks it, one per module image.
func (c *Core) minidumpMappings(d *minidump.Dump) {
	for _, m := range d.Linux.Maps {
		if strings.HasPrefix(m.Path, "/") {
			c.Mappings = append(c.Mappings, Mapping{Start: m.Start, End: m.End, Offset: m.Offset, Path: m.Path})
		}
	}
	if len(c.Mappings) == 0 {
		for _, m := range d.Modules {
			if m.Size > 0 && m.Base+m.Size > m.Base && strings.HasPrefix(m.Name, "/") {
				c.Mappings = append(c.Mappings, Mapping{Start: m.Base, End: m.Base + m.Size, Path: m.Name})
			}
		}
	}
	sort.SliceStable(c.Mappings, func(i, j int) bool { return c.Mappings[i].Start < c.Mappings[j].Start })
}

// Annotation is one of a crash reporter's annotations: a key and its
// value, process-wide or of a module (Module its name), or one of a
// module's list annotations (List: a value without a key).
type Annotation struct {
	Module     string // "" for the process's
	Key, Value string
	List       bool
}

// minidumpAnnotations takes Crashpad's annotations: the process's simple
// annotations, then each module's list and simple annotations.
func (c *Core) minidumpAnnotations(d *minidump.Dump) {
	ci := d.Crashpad
	if ci == nil {
		return
	}
	for _, a := range ci.Annotations {
		c.Annotations = append(c.Annotations, Annotation{Key: a.Key, Value: a.Value})
	}
	for _, m := range ci.Modules {
		name := fmt.Sprintf("module %d", m.ModuleIndex)
		if int(m.ModuleIndex) < len(d.Modules) {
			name = d.Modules[m.ModuleIndex].Name
		}
		for _, v := range m.List {
			c.Annotations = append(c.Annotations, Annotation{Module: name, Value: v, List: true})
		}
		for _, a := range m.Simple {
			c.Annotations = append(c.Annotations, Annotation{Module: name, Key: a.Key, Value: a.Value})
		}
	}
}

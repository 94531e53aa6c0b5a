package analyze

import (
	"debug/elf"
	"sort"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/report"
)

// memoryMap is the process's address space as the core describes it: one
// entry per PT_LOAD (the kernel writes one per mapping, with its
// permissions, dumped or not), named by the NT_FILE entry that starts at
// the same address; NT_FILE entries no segment describes (gdb's gcore
// leaves some out) follow with unknown permissions ("").
func memoryMap(c *corefile.Core) []report.Mapping {
	files := map[uint64]*corefile.Mapping{}
	for i := range c.Mappings {
		files[c.Mappings[i].Start] = &c.Mappings[i]
	}
	out := make([]report.Mapping, 0, len(c.Segments)+len(c.Mappings))
	covered := map[uint64]bool{}
	for _, s := range c.Segments {
		if s.Memsz == 0 {
			continue
		}
		m := report.Mapping{
			Start:      report.Hex(s.Vaddr),
			End:        report.Hex(s.Vaddr + s.Memsz),
			Perms:      perms(s.Flags),
			DumpedSize: report.Hex(min(c.Present(s), s.Memsz)),
		}
		if f := files[s.Vaddr]; f != nil {
			m.Offset, m.Path = report.Hex(f.Offset), report.Ptr(f.Path)
			covered[s.Vaddr] = true
		}
		out = append(out, m)
	}
	for _, f := range c.Mappings {
		if !covered[f.Start] && c.Format == "elf-linux" {
			out = append(out, report.Mapping{Start: report.Hex(f.Start), End: report.Hex(f.End), Offset: report.Hex(f.Offset), Path: report.Ptr(f.Path)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// perms writes segment flags as /proc/PID/maps does, without its
// private/shared letter (a core does not record it).
func perms(f elf.ProgFlag) string {
	b := []byte("---")
	if f&elf.PF_R != 0 {
		b[0] = 'r'
	}
	if f&elf.PF_W != 0 {
		b[1] = 'w'
	}
	if f&elf.PF_X != 0 {
		b[2] = 'x'
	}
	return string(b)
}

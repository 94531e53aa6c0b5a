package corefile

import (
	"debug/elf"
	"fmt"
)

// A placed module is one that no NT_FILE note describes (qemu-user cores,
// kernels before 3.7, other dumpers): the main executable found through the
// auxiliary vector, or a library from the dynamic linker's link map. What
// is known is where it was loaded (its load bias); its extent and mappings
// come from program headers: the image's own in the core when the core
// holds its header page (kernel cores), else those of the file accepted
// for it (qemu-user cores lack the first, header and text, segment of
// every ELF mapping).
type placement struct {
	bias      uint64
	biasKnown bool
	// entry is AT_ENTRY, for a main executable whose bias the core does
	// not give: a candidate file's bias is then entry - e_entry.
	entry uint64
	// phdr is AT_PHDR for the main executable: without AT_ENTRY, the bias
	// is phdr - the PT_PHDR segment's address.
	phdr uint64
	ld   uint64 // l_ld: the module's dynamic section, 0 if not known
}

// biasFor is the load bias of the object with header h and program
// headers phs under this placement.
func (p *placement) biasFor(h *fileHeader, phs []progHeader) uint64 {
	switch {
	case p.biasKnown:
		return p.bias
	case p.entry != 0:
		return p.entry - h.Entry
	}
	for _, ph := range phs {
		if ph.Type == elf.PT_PHDR {
			return p.phdr - ph.Vaddr
		}
	}
	return 0
}

// Bounds on a placed module's layout, whatever its program headers say.
const maxPlacedMappings = 256

// fileProgHeaders decodes the header and program headers of an ELF file
// held in data.
func fileProgHeaders(data []byte) (*fileHeader, []progHeader, error) {
	h, err := parseFileHeader(data)
	if err != nil {
		return nil, nil, err
	}
	if h.Phnum == pnXNum || uint64(h.Phnum)*uint64(h.Phentsize) > maxPhdrTable {
		return nil, nil, formatErr(h.Phoff, "program header table of %d entries", h.Phnum)
	}
	tab, _ := sliceAt(data, h.Phoff, uint64(h.Phnum)*uint64(h.Phentsize))
	phs, err := parseProgHeaders(tab, h, h.Phnum, h.Phoff)
	return h, phs, err
}

// pageSize is the target's page size: AT_PAGESZ, else 4 KiB.
func (c *Core) pageSize() uint64 {
	if v, ok := c.AuxVal(AT_PAGESZ); ok && v >= 1<<10 && v <= 1<<20 && v&(v-1) == 0 {
		return v
	}
	return 4096
}

// loadMappings lays out an ELF object's PT_LOAD segments at bias the way
// the loader maps them: each from the page holding its first byte to the
// page end of its file contents (the rest of p_memsz is anonymous, as in
// NT_FILE). Segments that wrap around the address space are skipped.
func loadMappings(phs []progHeader, bias, page uint64, path string) []Mapping {
	var out []Mapping
	for _, ph := range phs {
		if ph.Type != elf.PT_LOAD || ph.Filesz == 0 || len(out) == maxPlacedMappings {
			continue
		}
		start := bias + ph.Vaddr
		end := start + ph.Filesz
		if start < bias || end < start || end+page-1 < end {
			continue
		}
		pad := start & (page - 1)
		if ph.Off < pad {
			continue // file offset and address disagree modulo the page
		}
		out = append(out, Mapping{Start: start - pad, End: (end + page - 1) &^ (page - 1), Offset: ph.Off - pad, Path: path})
	}
	return out
}

// setLayout gives a placed module its mappings and the extent and base
// they imply.
func (mod *Module) setLayout(maps []Mapping) {
	mod.Mappings = maps
	if len(maps) == 0 {
		return
	}
	mod.Start, mod.End, mod.FileOffset = maps[0].Start, maps[0].End, maps[0].Offset
	for _, m := range maps {
		if m.Start < mod.Start {
			mod.Start, mod.FileOffset = m.Start, m.Offset
		}
		mod.End = max(mod.End, m.End)
		if m.Offset == 0 && mod.Base == 0 {
			mod.Base = m.Start
		}
	}
}

// layoutFromCore lays a placed module out from its own image in the core,
// when the core holds the ELF header at base: its mappings and the build
// ID the core's memory holds.
func (c *Core) layoutFromCore(mod *Module, base uint64) bool {
	var hb [elf64HeaderSize]byte
	n := elf32HeaderSize
	if c.ptrSize == 8 {
		n = elf64HeaderSize
	}
	if c.readCore(base, hb[:n]) != nil {
		return false
	}
	h, err := parseFileHeader(hb[:n])
	if err != nil || h.Phentsize < h.phdrSize() || h.Phnum == pnXNum || uint64(h.Phnum)*uint64(h.Phentsize) > maxPhdrTable {
		return false
	}
	tab := make([]byte, h.Phnum*h.Phentsize)
	if c.readCore(base+h.Phoff, tab) != nil {
		return false
	}
	phs, err := parseProgHeaders(tab, h, h.Phnum, h.Phoff)
	if err != nil {
		return false
	}
	bias := mod.place.biasFor(h, phs)
	maps := loadMappings(phs, bias, c.pageSize(), mod.Path)
	if len(maps) == 0 || maps[0].Start != base || maps[0].Offset != 0 {
		return false // not the image the placement names
	}
	mod.place.bias, mod.place.biasKnown = bias, true
	mod.setLayout(maps)
	id, err := imageBuildID(c.readCore, true, base)
	if err != nil {
		c.warnf("module %s: build ID not readable from core: %v", mod.Path, err)
	}
	mod.BuildID = id
	return true
}

// candidateLayout lays a placed module out from a candidate file's
// program headers: its mappings and the build ID the core's memory holds
// where the file puts its notes ("" when the core lacks those pages).
func (c *Core) candidateLayout(mod *Module, data []byte) (maps []Mapping, bias uint64, coreID string, err error) {
	h, phs, err := fileProgHeaders(data)
	if err != nil {
		return nil, 0, "", err
	}
	bias = mod.place.biasFor(h, phs)
	if err := mod.place.check(h, phs, bias); err != nil {
		return nil, 0, "", err
	}
	maps = loadMappings(phs, bias, c.pageSize(), mod.Path)
	if len(maps) == 0 {
		return nil, 0, "", formatErr(h.Phoff, "no loadable segment")
	}
	coreID, _ = notesBuildID(c.readCore, phs, h.Order, func(ph progHeader) uint64 { return bias + ph.Vaddr })
	return maps, bias, coreID, nil
}

// check tells a wrong file by what the process recorded about the right
// one, for cores that lack the pages holding the build ID: at bias, the
// file's dynamic section must be where the link map's l_ld says, and its
// program headers where AT_PHDR says; an executable linked at a fixed
// address (ET_EXEC) is not moved.
func (p *placement) check(h *fileHeader, phs []progHeader, bias uint64) error {
	if h.Type == elf.ET_EXEC && bias != 0 {
		return fmt.Errorf("its entry point is 0x%x, not AT_ENTRY 0x%x, and it cannot be moved", h.Entry, p.entry)
	}
	for _, ph := range phs {
		if ph.Type == elf.PT_DYNAMIC && p.ld != 0 && bias+ph.Vaddr != p.ld {
			return fmt.Errorf("its dynamic section would be at 0x%x, the link map has it at 0x%x", bias+ph.Vaddr, p.ld)
		}
		if ph.Type == elf.PT_LOAD && p.phdr != 0 && h.Phoff >= ph.Off && h.Phoff-ph.Off < ph.Filesz {
			if at := bias + ph.Vaddr + (h.Phoff - ph.Off); at != p.phdr {
				return fmt.Errorf("its program headers would be at 0x%x, AT_PHDR has them at 0x%x", at, p.phdr)
			}
		}
	}
	return nil
}

package corefile

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"sort"
)

// maxPathLen bounds the paths read from the core's memory (PATH_MAX).
const maxPathLen = 4096

// placeModules finds the modules of a core without an NT_FILE note, as gdb
// and eu-stack do: the executable from the auxiliary vector, then the
// shared libraries, the dynamic loader among them, from the dynamic
// linker's link map (the vDSO is a module of its own, from
// AT_SYSINFO_EHDR). Each is resolved to a file as it is placed: the link
// map is read through the executable's dynamic section, which may need
// its file.
func (c *Core) placeModules(opts Options) {
	exe := c.placeExecutable()
	if exe == nil {
		c.warnf("no NT_FILE note and no AT_ENTRY or AT_PHDR in the auxiliary vector: modules unknown")
		return
	}
	c.addPlaced(exe, opts)
	if !exe.place.biasKnown {
		c.warnf("module %s: load address unknown: no file found for the executable and the core lacks its headers", exe.Path)
		return
	}
	phs, err := c.exeProgHeaders()
	if err != nil {
		c.warnf("executable's program headers: %v: shared libraries unknown", err)
		return
	}
	entries, problems := c.linkMap(phs, exe.place.bias)
	for _, err := range problems {
		c.warnf("%v", err)
	}
	interp, hasInterp := c.AuxVal(AT_BASE)
	for _, e := range c.libraryEntries(entries) {
		mod := &Module{Path: e.path, place: &placement{bias: e.addr, biasKnown: true, ld: e.ld}}
		c.addPlaced(mod, opts)
		if mod.Base == interp || e.addr == interp {
			hasInterp = false
		}
	}
	// Before the dynamic linker has set up r_debug (or in a program that
	// never asks for it) the loader is still known from AT_BASE.
	if hasInterp && interp != 0 {
		if path := c.interpPath(phs, exe.place.bias); path != "" {
			c.addPlaced(&Module{Path: path, place: &placement{bias: interp, biasKnown: true}}, opts)
		}
	}
}

// placeExecutable places the main executable from the auxiliary vector:
// AT_PHDR is where its program headers were loaded, AT_ENTRY its entry
// point. Its path is AT_EXECFN (else the command name).
func (c *Core) placeExecutable() *Module {
	entry, hasEntry := c.AuxVal(AT_ENTRY)
	phdr, hasPhdr := c.AuxVal(AT_PHDR)
	if !hasEntry && !hasPhdr {
		return nil
	}
	path := ""
	if a, ok := c.AuxVal(AT_EXECFN); ok {
		path = c.readCString(a, maxPathLen)
	}
	if path == "" {
		path = c.Comm
	}
	mod := &Module{Path: path, Main: true, place: &placement{entry: entry, phdr: phdr}}
	// Linkers put the program headers right after the ELF header; kernel
	// cores hold that page.
	hdr := uint64(elf32HeaderSize)
	if c.ptrSize == 8 {
		hdr = elf64HeaderSize
	}
	if hasPhdr && phdr >= hdr {
		c.layoutFromCore(mod, phdr-hdr)
	}
	return mod
}

// addPlaced resolves a placed module's file, lays it out and adds it and
// its mappings to the core, keeping the lookup tables sorted for the
// reads that place the next one.
func (c *Core) addPlaced(mod *Module, opts Options) {
	c.resolveFile(mod, opts)
	if mod.Mappings == nil && mod.place.biasKnown {
		// Neither the core nor a file gives its extent: where it was
		// loaded is all that is known.
		mod.Start, mod.End, mod.Base = mod.place.bias, mod.place.bias, mod.place.bias
	}
	c.Modules = append(c.Modules, mod)
	c.Mappings = append(c.Mappings, mod.Mappings...)
	sort.SliceStable(c.Mappings, func(i, j int) bool { return c.Mappings[i].Start < c.Mappings[j].Start })
	sort.Slice(c.overlays, func(i, j int) bool { return c.overlays[i].start < c.overlays[j].start })
}

// exeProgHeaders reads the main executable's program headers where
// AT_PHDR, AT_PHNUM and AT_PHENT say they were loaded (from the core, or
// from the executable's file where the core lacks the page).
func (c *Core) exeProgHeaders() ([]progHeader, error) {
	phdr, _ := c.AuxVal(AT_PHDR)
	num, _ := c.AuxVal(AT_PHNUM)
	ent, _ := c.AuxVal(AT_PHENT)
	h := &fileHeader{Class: elf.ELFCLASS32, Order: c.order, Phentsize: int(min(ent, 1<<16))}
	if c.ptrSize == 8 {
		h.Class = elf.ELFCLASS64
	}
	if phdr == 0 || num == 0 || num > maxPhdrTable || num*uint64(h.Phentsize) > maxPhdrTable {
		return nil, fmt.Errorf("auxiliary vector: AT_PHDR 0x%x, AT_PHNUM %d, AT_PHENT %d", phdr, num, ent)
	}
	tab := make([]byte, num*uint64(h.Phentsize))
	if err := c.ReadMem(phdr, tab); err != nil {
		return nil, err
	}
	return parseProgHeaders(tab, h, int(num), phdr)
}

// exeBias is the main executable's load bias: where AT_PHDR says its
// program headers are, less the address its PT_PHDR gives them (0 for an
// executable without PT_PHDR: not position-independent).
func exeBias(phs []progHeader, phdr uint64) uint64 {
	for _, ph := range phs {
		if ph.Type == elf.PT_PHDR {
			return phdr - ph.Vaddr
		}
	}
	return 0
}

// interpPath reads the executable's PT_INTERP: the dynamic loader's path.
func (c *Core) interpPath(phs []progHeader, bias uint64) string {
	for _, ph := range phs {
		if ph.Type == elf.PT_INTERP && ph.Filesz > 1 && ph.Filesz <= maxPathLen {
			if s, err := c.readString(bias+ph.Vaddr, int(ph.Filesz)); err == nil {
				return s
			}
		}
	}
	return ""
}

// readWord reads one target word at addr.
func (c *Core) readWord(addr uint64) (uint64, error) {
	var b [8]byte
	if err := c.ReadMem(addr, b[:c.ptrSize]); err != nil {
		return 0, err
	}
	return c.word(b[:]), nil
}

// word decodes a target word from the start of b.
func (c *Core) word(b []byte) uint64 {
	return wordOf(b, c.order, c.ptrSize)
}

func wordOf(b []byte, order binary.ByteOrder, ptrSize int) uint64 {
	if ptrSize == 8 {
		return order.Uint64(b)
	}
	return uint64(order.Uint32(b))
}

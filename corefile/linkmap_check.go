package corefile

import (
	"debug/elf"
	"path/filepath"
	"strings"
)

// checkLinkMap compares the modules NT_FILE gives with the dynamic
// linker's link map, and warns where they disagree: a library in the link
// map whose dynamic section no NT_FILE module maps, or that NT_FILE maps
// at another bias or under another name; an NT_FILE module with code that
// the link map does not list. Either may be the corrupt one, so nothing is
// changed.
func (c *Core) checkLinkMap(opts Options) {
	phdr, _ := c.AuxVal(AT_PHDR)
	if len(c.Modules) == 0 || !c.Modules[0].Main || phdr == 0 {
		return
	}
	phs, err := c.exeProgHeaders()
	if err != nil {
		return // the same is said elsewhere when it matters (no NT_FILE)
	}
	entries, problems := c.linkMap(phs, exeBias(phs, phdr))
	for _, err := range problems {
		c.warnf("%v", err)
	}
	libs := c.libraryEntries(entries)
	if len(libs) == 0 {
		return
	}
	listed := map[*Module]bool{}
	for _, e := range libs {
		mod := c.ntFileModuleAt(e.ld)
		if mod == nil {
			c.warnf("link map: %s at bias 0x%x: no NT_FILE mapping holds its dynamic section at 0x%x", e.path, e.addr, e.ld)
			continue
		}
		listed[mod] = true
		if bias, ok := c.moduleBias(mod); ok && bias != e.addr {
			c.warnf("link map: %s at bias 0x%x, but NT_FILE maps %s at bias 0x%x", e.path, e.addr, mod.Path, bias)
		}
		if !sameObject(e.path, mod.Path, opts.Sysroot) {
			c.warnf("link map: %s at bias 0x%x, but NT_FILE maps %s there", e.path, e.addr, mod.Path)
		}
	}
	for _, mod := range c.Modules {
		if mod.Main || mod.InCore || listed[mod] || !c.hasCodeMapping(mod) {
			continue
		}
		c.warnf("module %s (NT_FILE, 0x%x-0x%x) is not in the dynamic linker's link map", mod.Path, mod.Start, mod.End)
	}
}

// ntFileModuleAt returns the module one of whose NT_FILE mappings holds
// addr, nil if none.
func (c *Core) ntFileModuleAt(addr uint64) *Module {
	for _, mod := range c.Modules {
		if mod.InCore {
			continue
		}
		for _, m := range mod.Mappings {
			if addr >= m.Start && addr < m.End {
				return mod
			}
		}
	}
	return nil
}

// moduleBias reads a module's load bias from its ELF header at Base (from
// the core or its file): Base less the first PT_LOAD's address.
func (c *Core) moduleBias(mod *Module) (uint64, bool) {
	if mod.Base == 0 {
		return 0, false
	}
	var hb [elf64HeaderSize]byte
	n := elf32HeaderSize
	if c.ptrSize == 8 {
		n = elf64HeaderSize
	}
	if c.ReadMem(mod.Base, hb[:n]) != nil {
		return 0, false
	}
	h, err := parseFileHeader(hb[:n])
	if err != nil || h.Phentsize < h.phdrSize() || h.Phnum == pnXNum || uint64(h.Phnum)*uint64(h.Phentsize) > maxPhdrTable {
		return 0, false
	}
	tab := make([]byte, h.Phnum*h.Phentsize)
	if c.ReadMem(mod.Base+h.Phoff, tab) != nil {
		return 0, false
	}
	phs, _ := parseProgHeaders(tab, h, h.Phnum, h.Phoff)
	for _, ph := range phs {
		if ph.Type == elf.PT_LOAD {
			return mod.Base - (ph.Vaddr - ph.Off), true
		}
	}
	return 0, false
}

// hasCodeMapping reports whether one of the module's mappings is
// executable: an ELF file mapped as data is no loaded object.
func (c *Core) hasCodeMapping(mod *Module) bool {
	for _, m := range mod.Mappings {
		if c.IsCode(m.Start) {
			return true
		}
	}
	return false
}

// sameObject reports whether the link map's name and NT_FILE's name can
// be the same file: the same base name, or the same file once symbolic
// links are followed (the link map holds the name the loader opened, e.g.
// a soname link or /lib where the kernel records /usr/lib).
func sameObject(linkMapPath, ntFilePath, sysroot string) bool {
	nt := strings.TrimSuffix(ntFilePath, deletedSuffix)
	if filepath.Base(linkMapPath) == filepath.Base(nt) {
		return true
	}
	resolve := func(p string) string {
		if sysroot != "" {
			q, ok := underRoot(sysroot, p)
			if !ok {
				return ""
			}
			p = q
		}
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			return ""
		}
		return r
	}
	a := resolve(linkMapPath)
	return a != "" && a == resolve(nt)
}

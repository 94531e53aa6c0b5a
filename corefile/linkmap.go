package corefile

import (
	"debug/elf"
	"fmt"
)

// The dynamic linker's list of loaded objects, as <link.h> lays it out in
// glibc, musl, bionic and uClibc: the executable's DT_DEBUG entry points
// to struct r_debug {int r_version; struct link_map *r_map; ElfW(Addr)
// r_brk; int r_state; ElfW(Addr) r_ldbase}, whose r_map heads a list of
// struct link_map {ElfW(Addr) l_addr; char *l_name; ElfW(Dyn) *l_ld;
// struct link_map *l_next, *l_prev}. The ints are padded to a word, so
// every field is at a multiple of the target's word size.
const (
	rDebugMapWord = 1 // r_map
	linkMapWords  = 5 // l_addr, l_name, l_ld, l_next, l_prev

	dtDebug = 21 // DT_DEBUG
	// MIPS keeps .dynamic read-only, so its loader leaves DT_DEBUG zero
	// and stores &r_debug in a word of the executable's data instead:
	// DT_MIPS_RLD_MAP gives that word's address, DT_MIPS_RLD_MAP_REL
	// (PIE) its offset from the dynamic entry itself.
	dtMIPSRldMap    = 0x70000016
	dtMIPSRldMapRel = 0x70000035

	// Bounds on what hostile memory can make the walk do.
	maxLinkMapEntries = 1024
	maxDynamicEntries = 4096
	maxLinkMapNames   = 256 << 10 // bytes of names, all entries together
)

// linkMapEntry is one struct link_map.
type linkMapEntry struct {
	at   uint64 // the entry's own address
	addr uint64 // l_addr: the object's load bias
	ld   uint64 // l_ld: its dynamic section
	name uint64 // l_name
	path string // the string at l_name
}

// rDebugAddr returns the address of r_debug from the DT_DEBUG entry of
// the executable's dynamic section (phs are its program headers, loaded
// at bias), or on MIPS through its DT_MIPS_RLD_MAP_REL or
// DT_MIPS_RLD_MAP word; 0 when it has none (a static executable, or the
// loader had not yet filled it in).
func (c *Core) rDebugAddr(phs []progHeader, bias uint64) (uint64, error) {
	w := uint64(c.ptrSize)
	for _, ph := range phs {
		if ph.Type != elf.PT_DYNAMIC {
			continue
		}
		n := min(ph.Memsz/(2*w), maxDynamicEntries)
		var ent [16]byte
		var mapWord uint64 // MIPS: the address of the word holding &r_debug
		for i := uint64(0); i < n; i++ {
			at := bias + ph.Vaddr + i*2*w
			if err := c.ReadMem(at, ent[:2*w]); err != nil {
				return 0, fmt.Errorf("executable's dynamic section: %w", err)
			}
			tag, val := c.word(ent[:]), c.word(ent[w:])
			switch {
			case tag == uint64(elf.DT_NULL):
				return c.rDebugFromMapWord(mapWord)
			case tag == dtDebug && val != 0:
				return val, nil
			case c.Machine == elf.EM_MIPS && tag == dtMIPSRldMapRel:
				mapWord = at + val
			case c.Machine == elf.EM_MIPS && tag == dtMIPSRldMap && mapWord == 0:
				mapWord = val
			}
		}
		return c.rDebugFromMapWord(mapWord)
	}
	return 0, nil
}

// rDebugFromMapWord reads &r_debug from MIPS's map word at addr (0: none).
func (c *Core) rDebugFromMapWord(addr uint64) (uint64, error) {
	if addr == 0 {
		return 0, nil
	}
	if c.ptrSize == 4 {
		addr &= 0xffffffff // an o32 offset from the entry wraps
	}
	v, err := c.readWord(addr)
	if err != nil {
		return 0, fmt.Errorf("executable's DT_MIPS_RLD_MAP word at 0x%x: %w", addr, err)
	}
	return v, nil
}

// linkMap reads the dynamic linker's list of loaded objects, found through
// the executable's dynamic section, and the problems met (one warning
// each). A list that is unreadable part way gives the entries before the
// fault; nil, nil when there is no list.
func (c *Core) linkMap(phs []progHeader, bias uint64) ([]linkMapEntry, []error) {
	rdebug, err := c.rDebugAddr(phs, bias)
	if err != nil {
		return nil, []error{err}
	}
	if rdebug == 0 {
		return nil, nil
	}
	head, err := c.readWord(rdebug + rDebugMapWord*uint64(c.ptrSize))
	if err != nil {
		return nil, []error{fmt.Errorf("link map: r_debug at 0x%x: %w", rdebug, err)}
	}
	return c.walkLinkMap(head)
}

// walkLinkMap follows l_next from head. The walk is bounded in length and
// stops at a cycle; each fault ends it with a problem saying where.
func (c *Core) walkLinkMap(head uint64) ([]linkMapEntry, []error) {
	w := c.ptrSize
	var out []linkMapEntry
	seen := map[uint64]bool{}
	buf := make([]byte, linkMapWords*w)
	var errs []error
	prev := uint64(0)
	names := maxLinkMapNames
	for at := head; at != 0; {
		if len(out) == maxLinkMapEntries {
			return out, append(errs, fmt.Errorf("link map: more than %d entries, the rest ignored", maxLinkMapEntries))
		}
		if seen[at] {
			return out, append(errs, fmt.Errorf("link map: entry at 0x%x comes round again (a cycle), the rest ignored", at))
		}
		seen[at] = true
		if err := c.ReadMem(at, buf); err != nil {
			return out, append(errs, fmt.Errorf("link map: entry at 0x%x: %w", at, err))
		}
		e := linkMapEntry{at: at, addr: c.word(buf), name: c.word(buf[w:]), ld: c.word(buf[2*w:])}
		if p := c.word(buf[4*w:]); p != prev && len(errs) < 8 {
			errs = append(errs, fmt.Errorf("link map: entry at 0x%x: l_prev is 0x%x, not the entry before it (0x%x)", at, p, prev))
		}
		if e.name != 0 && names > 0 {
			s, err := c.readString(e.name, min(maxPathLen, names))
			names -= len(s) + 1
			if err != nil && len(errs) < 8 {
				errs = append(errs, fmt.Errorf("link map: entry at 0x%x: l_name: %w", at, err))
			} else if err == nil {
				e.path = s
			}
		}
		out = append(out, e)
		prev, at = at, c.word(buf[3*w:])
	}
	return out, errs
}

// libraryEntries keeps the link map entries that are shared objects on
// disk, as gdb's "info sharedlibrary" lists them: not the first (the
// executable itself, with an empty name), not nameless ones, not the
// vDSO (its dynamic section lies in the image AT_SYSINFO_EHDR names; it
// is a module of its own).
func (c *Core) libraryEntries(entries []linkMapEntry) []linkMapEntry {
	var out []linkMapEntry
	vdsoEnd := c.VDSO
	if i := c.findRange(c.VDSO); c.VDSO != 0 && i >= 0 {
		vdsoEnd = c.ranges[i].end
	}
	for _, e := range entries {
		if e.path == "" {
			continue
		}
		if c.VDSO != 0 && (e.addr == c.VDSO || (e.ld >= c.VDSO && e.ld < vdsoEnd)) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// readString reads a NUL-terminated string of at most max bytes from the
// process's memory (the core, else the files), a page-sized piece at a
// time.
func (c *Core) readString(addr uint64, max int) (string, error) {
	start := addr
	var out []byte
	const piece = 256
	buf := make([]byte, piece)
	for len(out) < max {
		n := piece - int(addr%piece) // stay within one piece: pages are whole
		n = min(n, max-len(out))
		if err := c.ReadMem(addr, buf[:n]); err != nil {
			// The tail of a file mapping may end mid-piece: go by bytes.
			n = 1
			if err := c.ReadMem(addr, buf[:1]); err != nil {
				return string(out), err
			}
		}
		for i, b := range buf[:n] {
			if b == 0 {
				return string(append(out, buf[:i]...)), nil
			}
		}
		out = append(out, buf[:n]...)
		if addr+uint64(n) < addr {
			break
		}
		addr += uint64(n)
	}
	return string(out), fmt.Errorf("0x%x: no NUL in %d bytes", start, max)
}

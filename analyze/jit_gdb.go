package analyze

import (
	"bytes"
	"debug/elf"
	"fmt"
	"sort"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
)

// The GDB JIT interface (gdb manual, "JIT Compilation Interface"): the
// program defines
//
//	struct jit_code_entry { jit_code_entry *next, *prev; const char *symfile_addr; uint64_t symfile_size; };
//	struct jit_descriptor { uint32_t version; uint32_t action_flag; jit_code_entry *relevant_entry, *first_entry; };
//	struct jit_descriptor __jit_debug_descriptor;
//
// and links an in-memory object file per batch of generated code into
// first_entry. Each object is an ELF image with the addresses of the code
// as it runs: an absolute object (ET_EXEC or ET_DYN, linked or relocated
// by the JIT before registering) whose symbols and .eh_frame apply
// without a load bias, or a relocatable one (ET_REL) whose section
// headers carry the load addresses (jit_rel.go). coreunwind treats each
// as a module.
// symfile_size is a uint64_t, aligned as the target's ABI aligns one in
// a struct: 8 bytes on the 32-bit ABIs (ARM EABI, PowerPC, MIPS, ...),
// but 4 on i386, where it follows symfile_addr at offset 12 (as gdb
// reads it: type_align of uint64_t).

// Bounds against a corrupt descriptor.
const (
	maxJITEntries    = 1 << 14
	maxJITObjectSize = 64 << 20
)

// loadGDBJIT reads the objects registered with the GDB JIT interface.
func loadGDBJIT(t *target) (mods []*module, warnings []string) {
	var desc uint64
	for _, m := range t.modules {
		obj := m.obj()
		if obj == nil {
			continue
		}
		if v, ok := lookupJITSymbols(obj)[symJITDescriptor]; ok {
			desc = v + m.bias
			break
		}
	}
	if desc == 0 {
		return nil, nil
	}
	w := t.PtrSize()
	order := t.ByteOrder()
	word := func(b []byte) uint64 {
		if w == 4 {
			return uint64(order.Uint32(b))
		}
		return order.Uint64(b)
	}
	hdr := make([]byte, 8+2*w)
	if err := t.ReadMem(desc, hdr); err != nil {
		return nil, []string{fmt.Sprintf("descriptor at %#x: %v", desc, err)}
	}
	if v := order.Uint32(hdr); v != 1 {
		return nil, []string{fmt.Sprintf("descriptor at %#x: version %d, want 1", desc, v)}
	}
	sizeOff := 3 * w
	if w == 4 && t.core.Machine != elf.EM_386 {
		sizeOff = 16
	}
	entry := make([]byte, sizeOff+8)
	seen := map[uint64]bool{}
	for e := word(hdr[8+w:]); e != 0; e = word(entry[0:]) {
		if seen[e] || len(seen) >= maxJITEntries {
			warnings = append(warnings, fmt.Sprintf("entry list cycles or exceeds %d entries at %#x", maxJITEntries, e))
			break
		}
		seen[e] = true
		if err := t.ReadMem(e, entry); err != nil {
			warnings = append(warnings, fmt.Sprintf("entry %#x: %v", e, err))
			break
		}
		addr, size := word(entry[2*w:]), order.Uint64(entry[sizeOff:])
		m, ws, err := jitObjectModule(t, addr, size)
		for _, w := range ws {
			warnings = append(warnings, fmt.Sprintf("entry %#x: %s", e, w))
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("entry %#x: %v", e, err))
			continue
		}
		if m != nil {
			mods = append(mods, m)
		}
	}
	mods, ws := dropOverlaps(mods)
	return mods, append(warnings, ws...)
}

// dropOverlaps sorts JIT modules by address and keeps, of modules that
// claim the same code (a stale entry, a corrupt header), the one that
// starts first: lookups find one module per address.
func dropOverlaps(mods []*module) (kept []*module, warnings []string) {
	sort.SliceStable(mods, func(i, j int) bool { return mods[i].start < mods[j].start })
	for _, m := range mods {
		if n := len(kept); n > 0 && m.start < kept[n-1].end {
			warnings = append(warnings, fmt.Sprintf("%s: code [%#x,%#x) overlaps %s, ignored", m.core.Path, m.start, m.end, kept[n-1].core.Path))
			m.obj().Close()
			continue
		}
		kept = append(kept, m)
	}
	return kept, warnings
}

// memReader reads the target's memory: a core, or a test's fake.
type memReader interface {
	ReadMem(addr uint64, p []byte) error
}

// jitObjectModule opens the in-memory object at addr as a module spanning
// its code sections. A relocatable object is first given its load
// addresses (jit_rel.go); what that found odd comes back as warnings.
func jitObjectModule(mem memReader, addr, size uint64) (m *module, warnings []string, err error) {
	if size < 64 || size > maxJITObjectSize {
		return nil, nil, fmt.Errorf("object at %#x: size %d out of bounds", addr, size)
	}
	// Check the last byte before allocating the whole image.
	var last [1]byte
	if err := mem.ReadMem(addr+size-1, last[:]); err != nil {
		return nil, nil, fmt.Errorf("object at %#x (%d bytes): %w", addr, size, err)
	}
	img := make([]byte, size)
	if err := mem.ReadMem(addr, img); err != nil {
		return nil, nil, fmt.Errorf("object at %#x: %w", addr, err)
	}
	name := fmt.Sprintf("[jit %#x]", addr)
	obj, err := elfx.NewObject(bytes.NewReader(img), int64(size), name)
	if err != nil {
		return nil, nil, err
	}
	if obj.Type() == elf.ET_REL {
		ws := locateRelocatable(mem, img, obj.ELF())
		for _, w := range ws {
			warnings = append(warnings, fmt.Sprintf("object at %#x: %s", addr, w))
		}
		// Reopen: the headers are unchanged, but nothing parsed from
		// the bytes before the rewrite may survive it.
		obj.Close()
		if obj, err = elfx.NewObject(bytes.NewReader(img), int64(size), name); err != nil {
			return nil, warnings, err
		}
	}
	var lo, hi uint64
	for _, s := range obj.ELF().Sections {
		if s.Flags&elf.SHF_EXECINSTR == 0 || s.Flags&elf.SHF_ALLOC == 0 || s.Size == 0 || s.Addr == 0 {
			continue
		}
		if s.Size > maxJITSectionSpan || s.Addr+s.Size < s.Addr {
			warnings = append(warnings, fmt.Sprintf("object at %#x: code section %s at %#x: size %#x out of bounds, ignored", addr, s.Name, s.Addr, s.Size))
			continue
		}
		if lo == 0 || s.Addr < lo {
			lo = s.Addr
		}
		hi = max(hi, s.Addr+s.Size)
	}
	if lo == 0 {
		obj.Close()
		return nil, warnings, fmt.Errorf("object at %#x: no code section with an address", addr)
	}
	cm := &corefile.Module{Path: name, Start: lo, End: hi, Base: lo, BuildID: obj.BuildID(), Found: true, InCore: true}
	return &module{core: cm, opened: obj, start: lo, end: hi}, warnings, nil
}

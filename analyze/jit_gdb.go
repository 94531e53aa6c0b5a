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
// as it runs (a JIT relocates it before registering), so its symbols and
// .eh_frame apply without a load bias. coreunwind treats each as a module.
// symfile_size is a uint64_t: on 32-bit targets it is taken 8-aligned.

// Bounds against a corrupt descriptor.
const (
	maxJITEntries    = 1 << 14
	maxJITObjectSize = 64 << 20
)

// loadGDBJIT reads the objects registered with the GDB JIT interface.
func loadGDBJIT(t *target) (mods []*module, warnings []string) {
	var desc uint64
	for _, m := range t.modules {
		if m.obj == nil {
			continue
		}
		if v, ok := lookupJITSymbols(m.obj)[symJITDescriptor]; ok {
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
	if w == 4 {
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
		m, err := jitObjectModule(t, addr, size)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("entry %#x: %v", e, err))
			continue
		}
		if m != nil {
			mods = append(mods, m)
		}
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].start < mods[j].start })
	return mods, warnings
}

// jitObjectModule opens the in-memory object at addr as a module spanning
// its code sections.
func jitObjectModule(t *target, addr, size uint64) (*module, error) {
	if size < 64 || size > maxJITObjectSize {
		return nil, fmt.Errorf("object at %#x: size %d out of bounds", addr, size)
	}
	// Check the last byte before allocating the whole image.
	var last [1]byte
	if err := t.ReadMem(addr+size-1, last[:]); err != nil {
		return nil, fmt.Errorf("object at %#x (%d bytes): %w", addr, size, err)
	}
	img := make([]byte, size)
	if err := t.ReadMem(addr, img); err != nil {
		return nil, fmt.Errorf("object at %#x: %w", addr, err)
	}
	name := fmt.Sprintf("[jit %#x]", addr)
	obj, err := elfx.NewObject(bytes.NewReader(img), int64(size), name)
	if err != nil {
		return nil, err
	}
	var lo, hi uint64
	for _, s := range obj.ELF().Sections {
		if s.Flags&elf.SHF_EXECINSTR == 0 || s.Flags&elf.SHF_ALLOC == 0 || s.Size == 0 || s.Addr == 0 {
			continue
		}
		if lo == 0 || s.Addr < lo {
			lo = s.Addr
		}
		hi = max(hi, s.Addr+s.Size)
	}
	if lo == 0 {
		obj.Close()
		return nil, fmt.Errorf("object at %#x: no code section with an address", addr)
	}
	cm := &corefile.Module{Path: name, Start: lo, End: hi, Base: lo, BuildID: obj.BuildID(), Found: true, InCore: true}
	return &module{core: cm, obj: obj, start: lo, end: hi}, nil
}

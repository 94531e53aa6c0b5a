package analyze

import (
	"debug/elf"
	"errors"
	"fmt"
	"maps"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/goruntime"
)

// goReader makes the goroutine reader for the executable of module m, nil
// when it is no Go program. A stripped one (-ldflags=-s -w) is one
// still: its .gopclntab, moduledata and build info stand in for the
// symbols (goStrippedSymbols) and the generated table for the DWARF.
// The DWARF, where there is one, still gives the whole layout of a
// release the table does not have; it is not read for one it has.
func goReader(t *target, m *module, obj *elfx.Object) (*goruntime.Reader, []string) {
	version, goarch, isGo := obj.GoBuildInfo()
	if !isGo && (obj.ELF() == nil || obj.ELF().Section(".gopclntab") == nil) {
		// No Go program: every gc-built one has its function table, and
		// build info since Go 1.13. Looking the runtime's names up in a
		// big C++ program's symbol strings (node's) was a tenth of its
		// report.
		return nil, nil
	}
	// A copy: the object keeps the map it returns.
	syms := maps.Clone(obj.SymbolValues(goruntime.SymbolNames...))
	bin := goruntime.Binary{Symbols: syms, Bias: m.bias, PtrSize: t.PtrSize(), Order: t.ByteOrder()}
	if !goruntime.IsGo(syms) {
		if !isGo {
			return nil, nil
		}
		if err := goStrippedSymbols(t, m, obj, syms); err != nil {
			return nil, []string{fmt.Sprintf("goroutines: %v", err)}
		}
	}
	bin.Version, bin.GOARCH = version, goarch
	ls, err := goLayouts(obj, bin)
	if err != nil {
		return nil, []string{fmt.Sprintf("goroutines: %v", err)}
	}
	bin.Layouts = ls
	if _, ok := syms[goruntime.SymAllgs]; !ok && !goruntime.IsGo(syms) {
		// Stripped, on an arch no code decoder reads: the data holds it.
		if err := goAllgsByScan(t, m, obj, bin); err != nil {
			return nil, []string{fmt.Sprintf("goroutines: %v", err)}
		}
	}
	r, err := goruntime.NewReader(bin)
	if err != nil {
		return nil, []string{fmt.Sprintf("goroutines: %v", err)}
	}
	return r, nil
}

// goLayoutsKey keys the executable's runtime layouts on its object.
type goLayoutsKey struct{}

// goLayoutsRead is what goLayouts read of an executable, or why not.
type goLayoutsRead struct {
	layouts *goruntime.Layouts
	err     error
}

// goLayouts are the runtime's struct layouts of obj, the executable bin
// describes, read once per object (the table, and the DWARF types a
// report of a Go core spent most of its time on) and shared by every
// core of a batch that runs it.
func goLayouts(obj *elfx.Object, bin goruntime.Binary) (*goruntime.Layouts, error) {
	read, ok := obj.Keyed(goLayoutsKey{}, func() any {
		if !goruntime.TableHas(bin.Version, bin.GOARCH) {
			if d, err := obj.DWARF(); err == nil {
				bin.DWARF = d
			}
		}
		ls, err := goruntime.ReadLayouts(bin)
		return goLayoutsRead{ls, err}
	}).(goLayoutsRead)
	if !ok {
		// The first reading faulted (a file truncated under its mapping).
		return nil, fmt.Errorf("goruntime: the layouts of %s could not be read", obj.Path())
	}
	return read.layouts, read.err
}

// maxAllgaddSize bounds the code of runtime.allgadd read (a few hundred
// bytes in every release).
const maxAllgaddSize = 4096

// goStrippedSymbols fills syms, for an executable without a symbol
// table, with what the reader needs: runtime.firstmoduledata is the
// moduledata found by scanning the data for the one pointing to the
// .gopclntab, and runtime.allgs is found in runtime.allgadd's code on
// x86 and arm64 (elsewhere goReader scans the data for it, once it has
// the layouts: goAllgsByScan). Wait reasons then come from the
// generated table.
func goStrippedSymbols(t *target, m *module, obj *elfx.Object, syms map[string]uint64) error {
	md, ok := obj.GoModuleData()
	if !ok {
		return fmt.Errorf("a stripped Go executable without a moduledata")
	}
	syms[goruntime.SymFirstModuledata] = md.Addr
	var decode func(code []byte, pc uint64) (uint64, bool)
	switch obj.Machine() {
	case elf.EM_X86_64, elf.EM_386:
		bits := 8 * t.PtrSize()
		decode = func(code []byte, pc uint64) (uint64, bool) { return goruntime.AllgsFromCode(code, pc, bits) }
	case elf.EM_AARCH64:
		decode = goruntime.AllgsFromARM64Code
	default:
		return nil // no decoder: goAllgsByScan
	}
	s, ok := obj.LookupSymbol(goruntime.FuncAllgadd)
	if !ok || s.Size == 0 {
		return fmt.Errorf("no %s in the stripped executable's function table", goruntime.FuncAllgadd)
	}
	code := make([]byte, min(s.Size, maxAllgaddSize))
	if err := t.ReadMem(s.Addr+m.bias, code); err != nil {
		return fmt.Errorf("%s's code: %w", goruntime.FuncAllgadd, err)
	}
	allgs, ok := decode(code, s.Addr)
	if !ok {
		return fmt.Errorf("no runtime.allgs in %s's code", goruntime.FuncAllgadd)
	}
	syms[goruntime.SymAllgs] = allgs
	return nil
}

// goAllgsByScan sets bin.Symbols' runtime.allgs, for a stripped
// executable whose runtime.allgadd no decoder reads, to the one slice
// of g's in the executable's writable data: its writable PT_LOAD
// segments, read from the core (a stripped executable may have no
// section headers to name .data and .bss).
func goAllgsByScan(t *target, m *module, obj *elfx.Object, bin goruntime.Binary) error {
	var found []uint64
	var errs []error
	for _, p := range obj.ELF().Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_W == 0 {
			continue
		}
		start := p.Vaddr + m.bias
		addr, err := goruntime.AllgsInData(t, bin, start, start+p.Memsz)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		found = append(found, addr-m.bias)
	}
	switch {
	case len(found) == 1:
		bin.Symbols[goruntime.SymAllgs] = found[0]
		return nil
	case len(found) > 1:
		return fmt.Errorf("runtime.allgs is ambiguous in the stripped executable's data: %#x and %#x", found[0], found[1])
	case len(errs) == 0:
		return fmt.Errorf("no writable segment in the stripped executable to find runtime.allgs in")
	}
	return fmt.Errorf("runtime.allgs not found: %w", errors.Join(errs...))
}

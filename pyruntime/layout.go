package pyruntime

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
)

// findLayout finds the interpreter's version, build and struct layout:
// 3.13's _Py_DebugOffsets in the core, describing this very build; else
// the table generated from CPython's headers for the version (Py_Version
// from 3.11, the module's name before) and build; else libpython's DWARF.
// The table comes before the DWARF, which costs a pass over the debug
// information's types (a quarter of a python3.11 core's report): Threads
// turns to the DWARF when what the table reads does not hold together.
func findLayout(b *Binary, mem Memory) (pylayout.Layout, uint32, error) {
	runtime := b.Symbols[SymRuntime] + b.Bias
	build := pylayout.BuildFromSymbols(func(name string) bool { _, ok := b.Symbols[name]; return ok })
	// 3.13+: the table at _PyRuntime's start describes this very build.
	head := make([]byte, pylayout.DebugOffsetsSize)
	if err := mem.ReadMem(runtime, head); err == nil {
		if l, err := pylayout.FromDebugOffsets(head, b.Order); err == nil {
			hex := uint32(b.Order.Uint64(head[8:]))
			table, err := pylayout.Lookup(l.Version, l.Build)
			if err != nil {
				return pylayout.Layout{}, 0, fmt.Errorf("_Py_DebugOffsets of %s: %w", VersionString(hex), err)
			}
			return l.Complete(table), hex, nil
		}
	}
	hex, v, err := findVersion(b, mem)
	if err != nil {
		return pylayout.Layout{}, 0, err
	}
	// The generated table is for 64-bit little-endian targets.
	if b.PtrSize == 8 && b.Order == binary.LittleEndian {
		if l, err := pylayout.Lookup(v, build); err == nil {
			return l, hex, nil
		}
	}
	if l, ok := dwarfLayout(b, v, build); ok {
		return l, hex, nil
	}
	return pylayout.Layout{}, 0, fmt.Errorf("%w: CPython %s %s, %d-byte pointers, and no DWARF that describes it", ErrUnsupported, v, build, b.PtrSize)
}

// dwarfLayout is the layout the module's DWARF gives, ok false when it
// has none that describes CPython v built as build.
func dwarfLayout(b *Binary, v pylayout.Version, build pylayout.Build) (pylayout.Layout, bool) {
	if b.DWARF == nil {
		return pylayout.Layout{}, false
	}
	d := b.DWARF()
	if d == nil {
		return pylayout.Layout{}, false
	}
	l, err := pylayout.FromDWARF(d, b.Order, v, build)
	return l, err == nil
}

// findVersion is the interpreter's PY_VERSION_HEX (0 when only the
// module's name gives the version) and feature release.
func findVersion(b *Binary, mem Memory) (uint32, pylayout.Version, error) {
	if addr, ok := b.Symbols[SymVersion]; ok {
		var buf [4]byte
		if err := mem.ReadMem(addr+b.Bias, buf[:]); err != nil {
			return 0, pylayout.Version{}, fmt.Errorf("%s: %w", SymVersion, err)
		}
		hex := b.Order.Uint32(buf[:])
		return hex, pylayout.VersionFromHex(uint64(hex)), nil
	}
	if v, _, ok := pylayout.FromLibName(b.Name); ok {
		return uint32(v.Major)<<24 | uint32(v.Minor)<<16, v, nil
	}
	return 0, pylayout.Version{}, errNoVersion
}

var errNoVersion = errors.New("no Py_Version symbol, and the module's name gives no version")

// DWARFFunc returns a module's DWARF, nil when it has none.
type DWARFFunc func() *dwarf.Data

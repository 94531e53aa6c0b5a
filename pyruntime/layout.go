package pyruntime

import (
	"debug/dwarf"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
)

// findLayout finds the interpreter's version, build and struct layout,
// best source first: 3.13's _Py_DebugOffsets in the core, libpython's
// DWARF, the table generated from CPython's headers. The version is
// Py_Version (3.11+), _Py_DebugOffsets' or the module's name
// (libpython3.9.so, python3.9).
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
	if b.DWARF != nil {
		if d := b.DWARF(); d != nil {
			if l, err := pylayout.FromDWARF(d, b.Order, v, build); err == nil {
				return l, hex, nil
			}
		}
	}
	l, err := pylayout.Lookup(v, build)
	if err != nil {
		return pylayout.Layout{}, 0, fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	if b.PtrSize != 8 {
		// The generated table is for 64-bit targets.
		return pylayout.Layout{}, 0, fmt.Errorf("%w: CPython %s with %d-byte pointers and no DWARF", ErrUnsupported, v, b.PtrSize)
	}
	return l, hex, nil
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

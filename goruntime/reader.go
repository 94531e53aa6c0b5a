package goruntime

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// Memory reads the target's memory (an unwind.AddrSpace is one).
type Memory interface {
	ReadMem(addr uint64, p []byte) error
}

// Symbol names the reader needs: Binary.Symbols holds their values.
const (
	SymBuildVersion      = "runtime.buildVersion"
	SymAllgs             = "runtime.allgs"
	SymWaitReasonStrings = "runtime.waitReasonStrings"
)

// SymbolNames are the symbols to look up for Binary.Symbols.
var SymbolNames = append([]string{SymBuildVersion, SymAllgs, SymWaitReasonStrings, SymFirstModuledata}, infoSymbols...)

// Binary is what the reader needs of a Go executable.
type Binary struct {
	// Symbols are link-time values of SymbolNames (absent: not defined).
	Symbols map[string]uint64
	// DWARF gives the runtime's struct layouts of a release the
	// generated table lacks (TableHas: then it need not be given).
	// Without it (a binary built with -ldflags=-w) they come from the
	// table for Version and GOARCH.
	DWARF *dwarf.Data
	// Version is the Go release that built the program ("go1.26.8",
	// from its build info), GOARCH its architecture ("amd64").
	Version, GOARCH string
	// Bias is the load bias: run-time address = link-time + Bias.
	Bias    uint64
	PtrSize int // 4 or 8
	Order   binary.ByteOrder
	// Layouts, when not nil, are ReadLayouts' of this executable, read
	// once and shared by the readers of its cores (a triage batch's):
	// NewReader then reads neither the table nor the DWARF.
	Layouts *Layouts
}

// IsGo reports whether symbols (a Binary's) name a Go program: the
// runtime's version string is in every Go executable.
func IsGo(symbols map[string]uint64) bool {
	_, ok := symbols[SymBuildVersion]
	return ok
}

// Bounds on what memory may make the reader do.
const (
	// MaxGoroutines bounds the goroutines read from runtime.allgs.
	MaxGoroutines = 1 << 20
	maxString     = 256 // a version or wait reason string
)

// Reader reads goroutines from a Go program's memory.
type Reader struct {
	b      Binary
	layout layout
	panic  panicLayout
	info   infoLayout
	// waitReasons name wait reasons from the generated table when the
	// executable has no runtime.waitReasonStrings symbol.
	waitReasons []string
}

// NewReader returns a reader for the program b describes, or an error
// when b is not a Go program or neither its DWARF nor the generated
// table has the runtime's types. The table is preferred where it has
// b's release; b's DWARF, when given, supplies what the table lacks.
func NewReader(b Binary) (*Reader, error) {
	if !IsGo(b.Symbols) && b.Version == "" {
		return nil, fmt.Errorf("goruntime: no %s: not a Go program", SymBuildVersion)
	}
	if _, ok := b.Symbols[SymAllgs]; !ok {
		return nil, fmt.Errorf("goruntime: no %s symbol", SymAllgs)
	}
	if b.PtrSize != 4 && b.PtrSize != 8 {
		return nil, fmt.Errorf("goruntime: pointer size %d", b.PtrSize)
	}
	ls := b.Layouts
	if ls == nil {
		var err error
		if ls, err = ReadLayouts(b); err != nil {
			return nil, err
		}
	}
	r := &Reader{b: b, layout: ls.layout, panic: ls.panic, info: ls.info}
	if _, ok := b.Symbols[SymWaitReasonStrings]; !ok {
		r.waitReasons = tableWaitReasons(b.Version)
	}
	return r, nil
}

// Layouts are the runtime's struct layouts of one executable: what a
// Reader needs of its DWARF or of the generated table, the same for
// every core of the executable.
type Layouts struct {
	layout layout
	panic  panicLayout
	info   infoLayout
}

// ReadLayouts reads the layouts of the executable b describes (its
// Version, GOARCH and DWARF; nothing of a core), for Binary.Layouts.
func ReadLayouts(b Binary) (*Layouts, error) {
	l, pl, il, err := readLayout(&b)
	if err != nil {
		return nil, fmt.Errorf("goruntime: %w", err)
	}
	return &Layouts{layout: l, panic: pl, info: il}, nil
}

// readLayout reads the runtime's layouts from the generated table for
// b's release, else from b's DWARF. A table written before layoutgen
// read the scheduler's clocks and the label types (what describes a
// goroutine beyond its stack: its wait time, its pprof labels) lacks
// them: those come from the DWARF where there is one, and are not read
// without it. A complete table's release needs no DWARF (TableHas).
func readLayout(b *Binary) (layout, panicLayout, infoLayout, error) {
	structs, terr := tableStructs(b.Version, b.GOARCH)
	if terr != nil {
		if b.DWARF == nil {
			return layout{}, panicLayout{}, infoLayout{}, fmt.Errorf("no DWARF, and %w", terr)
		}
		return layoutFromDWARF(b.DWARF)
	}
	if b.DWARF != nil && !tableComplete(structs) {
		var missing []string
		for _, n := range infoStructs {
			if structs[n] == nil {
				missing = append(missing, n)
			}
		}
		if extra, err := findStructs(b.DWARF, missing...); err == nil {
			for n, st := range extra {
				structs[n] = st
			}
		}
	}
	return layoutOf(structs)
}

// word reads a pointer-sized word at addr.
func (r *Reader) word(mem Memory, addr uint64) (uint64, error) {
	var buf [8]byte
	p := buf[:r.b.PtrSize]
	if err := mem.ReadMem(addr, p); err != nil {
		return 0, err
	}
	return r.decodeWord(p), nil
}

func (r *Reader) decodeWord(p []byte) uint64 {
	if len(p) == 4 {
		return uint64(r.b.Order.Uint32(p))
	}
	return r.b.Order.Uint64(p)
}

// str reads a Go string header at addr and its bytes, at most maxString
// of them; ok is false when it cannot be read or is not text.
func (r *Reader) str(mem Memory, addr uint64) (string, bool) {
	ptr, err := r.word(mem, addr)
	if err != nil {
		return "", false
	}
	n, err := r.word(mem, addr+uint64(r.b.PtrSize))
	if err != nil || n > maxString {
		return "", false
	}
	buf := make([]byte, n)
	if err := mem.ReadMem(ptr, buf); err != nil || !utf8.Valid(buf) {
		return "", false
	}
	return string(buf), true
}

// Version returns runtime.buildVersion ("go1.26.8"), the build info's
// version where the symbol is stripped, "" if unreadable.
func (r *Reader) Version(mem Memory) string {
	v, ok := r.b.Symbols[SymBuildVersion]
	if !ok {
		return r.b.Version
	}
	s, _ := r.str(mem, v+r.b.Bias)
	return s
}

// waitReason names wait reason n from the runtime's own table, "" when
// the table cannot be read.
func (r *Reader) waitReason(mem Memory, n uint8) string {
	tab, ok := r.b.Symbols[SymWaitReasonStrings]
	if !ok {
		if int(n) < len(r.waitReasons) {
			return r.waitReasons[n]
		}
		return ""
	}
	s, _ := r.str(mem, tab+r.b.Bias+uint64(n)*uint64(2*r.b.PtrSize))
	return s
}

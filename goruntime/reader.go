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
	// DWARF gives the runtime's struct layouts.
	DWARF *dwarf.Data
	// Bias is the load bias: run-time address = link-time + Bias.
	Bias    uint64
	PtrSize int // 4 or 8
	Order   binary.ByteOrder
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
}

// NewReader returns a reader for the program b describes, or an error
// when b is not a Go program or its DWARF lacks the runtime's types.
func NewReader(b Binary) (*Reader, error) {
	if !IsGo(b.Symbols) {
		return nil, fmt.Errorf("goruntime: no %s: not a Go program", SymBuildVersion)
	}
	if _, ok := b.Symbols[SymAllgs]; !ok {
		return nil, fmt.Errorf("goruntime: no %s symbol", SymAllgs)
	}
	if b.PtrSize != 4 && b.PtrSize != 8 {
		return nil, fmt.Errorf("goruntime: pointer size %d", b.PtrSize)
	}
	if b.DWARF == nil {
		return nil, fmt.Errorf("goruntime: no DWARF: %w", errNoLayout)
	}
	l, pl, il, err := layoutFromDWARF(b.DWARF)
	if err != nil {
		return nil, fmt.Errorf("goruntime: %w", err)
	}
	return &Reader{b: b, layout: l, panic: pl, info: il}, nil
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

// Version returns runtime.buildVersion ("go1.26.8"), "" if unreadable.
func (r *Reader) Version(mem Memory) string {
	s, _ := r.str(mem, r.b.Symbols[SymBuildVersion]+r.b.Bias)
	return s
}

// waitReason names wait reason n from the runtime's own table, "" when
// the table cannot be read.
func (r *Reader) waitReason(mem Memory, n uint8) string {
	tab, ok := r.b.Symbols[SymWaitReasonStrings]
	if !ok {
		return ""
	}
	s, _ := r.str(mem, tab+r.b.Bias+uint64(n)*uint64(2*r.b.PtrSize))
	return s
}

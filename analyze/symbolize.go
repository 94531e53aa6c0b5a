package analyze

import (
	"sync"

	"github.com/coreunwind/coreunwind/report"
)

// symbolizer names frames. What it learns about a lookup address is kept:
// deep recursion and many threads in one function ask for the same
// addresses again and again.
type symbolizer struct {
	t    *target
	full bool // names, lines and inlines; else modules and offsets only
	mu   sync.Mutex
	memo map[memoKey][]report.Frame
}

// memoKey is a lookup address and whether the frame's pc is a return
// address (pc = addr+1): the two give the same names but other offsets.
type memoKey struct {
	addr    uint64
	retAddr bool
}

func newSymbolizer(t *target, full bool) *symbolizer {
	return &symbolizer{t: t, full: full, memo: map[memoKey][]report.Frame{}}
}

// frames appends the report frames for f — one per inlined call at its
// PC, innermost first, then the function they were inlined into.
func (s *symbolizer) frames(out []report.Frame, f *rawFrame) []report.Frame {
	base := report.Frame{PC: report.Hex(f.pc), ExactPC: f.exactPC, Trust: f.trust.String(), Signal: f.signal}
	if f.hasSP {
		base.SP = report.Ptr(report.Hex(f.sp))
	}
	if f.hasCFA {
		base.CFA = report.Ptr(report.Hex(f.cfa))
	}
	for _, sf := range s.lookup(f.lookup, f.pc) {
		fr := base
		fr.Module, fr.ModuleOffset = sf.Module, sf.ModuleOffset
		fr.Function, fr.FunctionOffset = sf.Function, sf.FunctionOffset
		fr.File, fr.Line, fr.Column, fr.Inlined = sf.File, sf.Line, sf.Column, sf.Inlined
		if !fr.Inlined {
			fr.Registers = f.regs
		}
		fr.Index = len(out)
		out = append(out, fr)
	}
	return out
}

// lookup returns the symbolic part of the frames at lookup address addr
// (pc is the address the frame reports, for the offsets).
func (s *symbolizer) lookup(addr, pc uint64) []report.Frame {
	key := memoKey{addr, pc != addr}
	s.mu.Lock()
	fs, ok := s.memo[key]
	s.mu.Unlock()
	if ok {
		return fs
	}
	fs = s.resolve(addr, pc)
	s.mu.Lock()
	s.memo[key] = fs
	s.mu.Unlock()
	return fs
}

func (s *symbolizer) resolve(addr, pc uint64) []report.Frame {
	m := s.t.module(addr)
	if m == nil {
		return []report.Frame{s.t.jitFrame(addr, pc)}
	}
	outer := report.Frame{
		Module:       report.Ptr(m.core.Path),
		ModuleOffset: report.Ptr(report.Hex(pc - m.core.Base)),
	}
	if m.obj == nil || !s.full {
		return []report.Frame{outer}
	}
	link := addr - m.bias
	if sym, ok := m.obj.Symbol(link); ok {
		outer.Function = report.Ptr(sym.Name)
		outer.FunctionOffset = report.Ptr(report.Hex(pc - m.bias - sym.Addr))
	} else if sym, ok := m.obj.Symbol(pc - m.bias); ok && sym.Addr == pc-m.bias && pc != addr {
		// A pushed return address at a function's first instruction
		// (makecontext's __start_context): nothing covers pc-1, the
		// function starts at pc.
		outer.Function = report.Ptr(sym.Name)
		outer.FunctionOffset = report.Ptr(report.Hex(0))
		return []report.Frame{outer}
	}
	src, _ := m.obj.SourceFrames(link)
	if len(src) == 0 {
		return []report.Frame{outer}
	}
	out := make([]report.Frame, len(src))
	for i, sf := range src {
		fr := report.Frame{Module: outer.Module, ModuleOffset: outer.ModuleOffset, Inlined: i < len(src)-1}
		if sf.Function != "" {
			fr.Function = report.Ptr(sf.Function)
		}
		if sf.File != "" {
			fr.File = report.Ptr(sf.File)
		}
		if sf.Line > 0 {
			fr.Line = report.Ptr(sf.Line)
		}
		if sf.Column > 0 {
			fr.Column = report.Ptr(sf.Column)
		}
		out[i] = fr
	}
	last := &out[len(out)-1]
	if last.Function == nil {
		last.Function = outer.Function
	}
	last.FunctionOffset = outer.FunctionOffset
	return out
}

package analyze

import (
	"github.com/coreunwind/coreunwind/report"
)

// symbolizer names frames. What it learns about a lookup address is kept:
// deep recursion and many threads in one function ask for the same
// addresses again and again.
type symbolizer struct {
	t    *target
	full bool // names, lines and inlines; else modules and offsets only
	memo memo[memoKey, []report.Frame]
	// tailMemo holds the tail-call chains found (tailcall.go), by gap.
	tailMemo memo[tailCallKey, []uint64]
	// targets holds the call targets named by linkage name, resolved
	// (tailcall.go).
	targets memo[string, namedTarget]
	// callees holds the tail-call sites of the functions the search
	// entered, by runtime entry (tailcall.go).
	callees memo[uint64, calleeSites]
}

// memoKey is a lookup address and whether the frame's pc is a return
// address (pc = addr+1): the two give the same names but other offsets.
type memoKey struct {
	addr    uint64
	retAddr bool
}

func newSymbolizer(t *target, full bool) *symbolizer {
	return &symbolizer{t: t, full: full}
}

// frames appends the report frames for f — one per inlined call at its
// PC, innermost first, then the function they were inlined into.
func (s *symbolizer) frames(out []report.Frame, f *rawFrame, th *threadNamer) []report.Frame {
	var sp, cfa *report.Hex
	if f.hasSP {
		sp = th.addrs.ptr(f.sp)
	}
	if f.hasCFA {
		cfa = th.addrs.ptr(f.cfa)
	}
	trust := f.trust.String()
	fs := th.lookup(s, f.lookup, f.pc)
	for i := range fs {
		sf := &fs[i]
		// Every field set in place: a Frame is 17 words, and a deep
		// stack is thousands of them.
		out = append(out, report.Frame{})
		fr := &out[len(out)-1]
		fr.Index, fr.PC, fr.ExactPC, fr.SP, fr.CFA, fr.Trust, fr.Signal = len(out)-1, report.Hex(f.pc), f.exactPC, sp, cfa, trust, f.signal
		fr.Module, fr.ModuleOffset = sf.Module, sf.ModuleOffset
		fr.Function, fr.FunctionOffset = sf.Function, sf.FunctionOffset
		fr.File, fr.Line, fr.Column, fr.Inlined, fr.GoWrapper = sf.File, sf.Line, sf.Column, sf.Inlined, sf.GoWrapper
		if !fr.Inlined {
			fr.Registers = f.regs
		}
	}
	return out
}

// threadNamer is what one thread's symbolization keeps to itself, so
// that threads named in parallel share no lock for it.
type threadNamer struct {
	addrs addrSlab
	// recent is a small direct-mapped cache in front of the symbolizer's
	// locked memo: a thread's frames come back to the same few return
	// addresses (recursion, loops of calls).
	recent [32]struct {
		key    memoKey
		frames []report.Frame
	}
}

func newThreadNamer(frames int) *threadNamer {
	return &threadNamer{addrs: make(addrSlab, 0, 2*frames)}
}

func (th *threadNamer) lookup(s *symbolizer, addr, pc uint64) []report.Frame {
	key := memoKey{addr, pc != addr}
	e := &th.recent[(addr^addr>>5)%uint64(len(th.recent))]
	if e.frames != nil && e.key == key {
		return e.frames
	}
	fs := s.lookup(addr, pc)
	e.key, e.frames = key, fs
	return fs
}

// addrSlab holds a thread's frame addresses (SP, CFA) in one allocation
// instead of two small ones a frame. It never grows: a pointer into it
// stays valid; past its capacity each address is allocated alone.
type addrSlab []report.Hex

func (a *addrSlab) ptr(v uint64) *report.Hex {
	if len(*a) == cap(*a) {
		return report.Ptr(report.Hex(v))
	}
	*a = append(*a, report.Hex(v))
	return &(*a)[len(*a)-1]
}

// lookup returns the symbolic part of the frames at lookup address addr
// (pc is the address the frame reports, for the offsets).
func (s *symbolizer) lookup(addr, pc uint64) []report.Frame {
	return s.memo.get(memoKey{addr, pc != addr}, func() []report.Frame { return s.resolve(addr, pc) })
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
	obj := m.obj()
	if obj == nil && s.full {
		named, _ := s.t.symbolFileFrame(m, outer, addr, pc)
		return []report.Frame{named}
	}
	if obj == nil || !s.full {
		return []report.Frame{outer}
	}
	link := addr - m.bias
	if sym, ok := obj.Symbol(link); ok {
		outer.Function = report.Ptr(sym.Name)
		outer.FunctionOffset = report.Ptr(report.Hex(pc - m.bias - sym.Addr))
	} else if sym, ok := obj.Symbol(pc - m.bias); ok && sym.Addr == pc-m.bias && pc != addr {
		// A pushed return address at a function's first instruction
		// (makecontext's __start_context): nothing covers pc-1, the
		// function starts at pc.
		outer.Function = report.Ptr(sym.Name)
		outer.FunctionOffset = report.Ptr(report.Hex(0))
		return []report.Frame{outer}
	}
	src, _ := obj.SourceFrames(link)
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
	if gf, ok := obj.GoFunc(link); ok {
		last.GoWrapper = gf.Wrapper
	}
	return out
}

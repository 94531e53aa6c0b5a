package analyze

import (
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// Tail calls leave no return address: between a caller frame and its
// callee the functions that jumped are missing. Their chain is rebuilt
// from the compiler's call-site records as gdb does it
// (gdb/dwarf2/loc.c, call_site_find_chain): the call site at the caller's
// return address names the function it called; if that is not the callee,
// every path of tail calls from it to the callee is searched, through
// functions that list all their tail calls. Frames are added only for the
// call sites every path shares (gdb keeps the common prefix and suffix);
// where no path is found, or the paths share nothing, or a target cannot
// be resolved, none are.

// maxTailCallSearch bounds the search of one gap: each step enters or
// leaves one call site. Real chains are a few calls long.
const maxTailCallSearch = 4096

// tailCallKey is one gap: a caller's return address and the callee
// function's entry (runtime addresses).
type tailCallKey struct{ ret, callee uint64 }

// tailCallSite is a call site at its runtime return address.
type tailCallSite struct {
	m    *module
	site elfx.CallSite
	pc   uint64 // runtime return address
}

// tailCallFrames appends the tail-call frames between callee (the frame
// out already ends with) and caller, the next frame walked. Only a caller
// found by CFI at a return address has a call site to start from.
func (s *symbolizer) tailCallFrames(out []report.Frame, callee, caller *rawFrame, th *threadNamer) []report.Frame {
	if !s.full || caller.exactPC || caller.signal || callee.signal || caller.trust != unwind.TrustCFI || caller.pc == 0 {
		return out
	}
	entry, ok := s.functionEntry(callee.lookup)
	if !ok {
		return out
	}
	for _, pc := range s.tailChain(caller.pc, entry) {
		// One frame a tail call, named as gdb names it: by the
		// innermost function at the jump (a call inlined into the
		// function that jumped is that function's, not a frame more).
		fs := th.lookup(s, pc-1, pc)
		if len(fs) == 0 {
			continue
		}
		sf := &fs[0]
		out = append(out, report.Frame{})
		fr := &out[len(out)-1]
		fr.Index, fr.PC, fr.Trust = len(out)-1, report.Hex(pc), report.TrustTailCall
		fr.Module, fr.ModuleOffset = sf.Module, sf.ModuleOffset
		fr.Function, fr.FunctionOffset = sf.Function, fs[len(fs)-1].FunctionOffset
		fr.File, fr.Line, fr.Column = sf.File, sf.Line, sf.Column
	}
	return out
}

// tailChain returns the runtime return addresses of the tail calls
// between the call at ret and the function at callee, innermost first.
func (s *symbolizer) tailChain(ret, callee uint64) []uint64 {
	return s.tailMemo.get(tailCallKey{ret, callee}, func() []uint64 { return s.moduleTailChain(ret, callee) })
}

// functionEntry is the runtime entry of the function holding addr.
func (s *symbolizer) functionEntry(addr uint64) (uint64, bool) {
	m := s.t.module(addr)
	obj := m.obj()
	if obj == nil {
		return 0, false
	}
	e, ok := obj.FunctionEntry(addr - m.bias)
	return e + m.bias, ok
}

// chainNode is a tail-call site on the current path, with the rest of
// its function's tail calls (gdb's tail_call_next) still to try.
type chainNode struct {
	site    tailCallSite
	sibling []tailCallSite
}

// searchTailChain is gdb's call_site_find_chain_1: a depth-first search
// over tail-call sites from the target of the call at ret to callee,
// intersecting every chain found. local: the search met no function
// outside ret's module and named no target another module could have
// answered, so its answer depends on that module's object alone
// (moduleTailChain).
func (s *symbolizer) searchTailChain(ret, callee uint64) (found []uint64, local bool) {
	m := s.t.module(ret - 1)
	obj := m.obj()
	if obj == nil {
		return nil, false
	}
	first, ok, err := obj.CallSiteAt(ret - m.bias)
	if err != nil || !ok {
		return nil, true
	}
	local = true
	callTarget := func(c tailCallSite) (uint64, bool) {
		addr, ok := s.callTarget(c)
		local = local && s.localTarget(m, c, addr, ok)
		return addr, ok
	}
	target, ok := callTarget(tailCallSite{m: m, site: first})
	if !ok {
		return nil, local
	}
	var chain []chainNode
	onPath := map[uint64]bool{}
	var result *callChain
	for steps := 0; ; steps++ {
		if steps > maxTailCallSearch {
			return nil, local
		}
		var next []tailCallSite
		if target == callee {
			if result = result.intersect(chain); result == nil {
				return nil, local // paths with nothing in common
			}
		} else {
			sites, ok := s.tailCallsOf(target)
			if !ok {
				return nil, local // gdb gives up on a target it cannot name
			}
			next = sites
		}
		// Enter the first of next, else backtrack to the nearest sibling.
		for {
			if len(next) > 0 {
				if !onPath[next[0].pc] {
					onPath[next[0].pc] = true
					chain = append(chain, chainNode{site: next[0], sibling: next[1:]})
					break
				}
			}
			next = nil
			for len(chain) > 0 {
				top := chain[len(chain)-1]
				chain = chain[:len(chain)-1]
				delete(onPath, top.site.pc)
				if len(top.sibling) > 0 {
					next = top.sibling
					break
				}
			}
			if next == nil {
				break
			}
		}
		if len(chain) == 0 {
			break
		}
		if target, ok = callTarget(chain[len(chain)-1].site); !ok {
			return nil, local
		}
	}
	return result.frames(), local
}

// callTarget resolves a call site's target to a runtime entry: an
// address in the caller's module, or a name looked up in every module,
// the executable first, as gdb's minimal symbols are.
func (s *symbolizer) callTarget(c tailCallSite) (uint64, bool) {
	if c.site.HasTargetAddr {
		return c.site.TargetAddr + c.m.bias, true
	}
	if c.site.TargetName == "" {
		return 0, false
	}
	t := s.targets.get(c.site.TargetName, func() namedTarget {
		for _, m := range s.t.modulesInLoadOrder() {
			obj := m.obj()
			if obj == nil {
				continue
			}
			if sym, ok := obj.LookupSymbol(c.site.TargetName); ok && sym.Addr != 0 {
				return namedTarget{sym.Addr + m.bias, true}
			}
		}
		return namedTarget{}
	})
	return t.addr, t.ok
}

// namedTarget is a call target named by its linkage name, resolved once
// per report: the search for a tail-call chain meets the same targets
// again and again, and each time asked every module in load order for
// the name (the generated C++ program after dwz: a third of a warm
// report).
type namedTarget struct {
	addr uint64
	ok   bool
}

// tailCallsOf returns the tail-call sites of the function at runtime
// entry; ok is false when no module's DWARF has a function starting
// there. The answer is kept: the search enters the same functions again
// and again (the generated C++ program after dwz: a new copy of their
// sites each time was 7 of the report's 52 MB allocated). Callers must
// not change it.
func (s *symbolizer) tailCallsOf(entry uint64) ([]tailCallSite, bool) {
	c := s.callees.get(entry, func() calleeSites {
		m := s.t.module(entry)
		obj := m.obj()
		if obj == nil {
			return calleeSites{}
		}
		sites, found, err := obj.TailCalls(entry - m.bias)
		if err != nil || !found {
			return calleeSites{}
		}
		out := make([]tailCallSite, len(sites))
		for i, c := range sites {
			out[i] = tailCallSite{m: m, site: c, pc: c.ReturnPC + m.bias}
		}
		return calleeSites{out, true}
	})
	return c.sites, c.ok
}

// calleeSites is tailCallsOf's answer for one function.
type calleeSites struct {
	sites []tailCallSite
	ok    bool
}

// callChain is gdb's call_site_chain: the call sites of the first chain
// found, of which the first callers and the last callees are shared by
// every chain found since.
type callChain struct {
	pcs              []uint64
	callers, callees int
}

// intersect adds one more chain; nil when the chains share nothing.
func (c *callChain) intersect(chain []chainNode) *callChain {
	if c == nil {
		pcs := make([]uint64, len(chain))
		for i, n := range chain {
			pcs[i] = n.site.pc
		}
		return &callChain{pcs: pcs, callers: len(pcs), callees: len(pcs)}
	}
	callers := min(c.callers, len(chain))
	for i := 0; i < callers; i++ {
		if c.pcs[i] != chain[i].site.pc {
			callers = i
			break
		}
	}
	callees := min(c.callees, len(chain))
	for i := 0; i < callees; i++ {
		if c.pcs[len(c.pcs)-1-i] != chain[len(chain)-1-i].site.pc {
			callees = i
			break
		}
	}
	c.callers, c.callees = callers, callees
	if callers == 0 && callees == 0 {
		return nil
	}
	return c
}

// frames lists the shared call sites innermost first: the callee side,
// then the caller side (gdb's pretend_pc order).
func (c *callChain) frames() []uint64 {
	if c == nil || len(c.pcs) == 0 {
		return nil
	}
	var out []uint64
	n := len(c.pcs)
	for i := 0; i < c.callees; i++ {
		out = append(out, c.pcs[n-1-i])
	}
	if c.callees != n {
		for i := c.callers - 1; i >= 0; i-- {
			out = append(out, c.pcs[i])
		}
	}
	return out
}

// modulesInLoadOrder lists the modules as gdb searches symbols by name:
// the executable first, then the others (in address order here, where
// gdb takes the dynamic linker's order; names resolved across libraries
// are defined once in a linked process).
func (t *target) modulesInLoadOrder() []*module {
	out := make([]*module, 0, len(t.modules))
	for _, m := range t.modules {
		if m.core.Path == t.core.Executable {
			out = append(out, m)
		}
	}
	for _, m := range t.modules {
		if m.core.Path != t.core.Executable {
			out = append(out, m)
		}
	}
	return out
}

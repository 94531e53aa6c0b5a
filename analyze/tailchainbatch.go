package analyze

// A tail-call chain found between two frames depends, when its search
// stayed inside one module (moduleTailChain), on that module's object
// alone: every core of a batch that has the same gap in the same
// executable or library has the same chain, at its own bias. The search
// is a depth-first walk over the functions' tail-call sites, up to
// maxTailCallSearch steps a gap; the generated C++ program after dwz
// meets hundreds of gaps a core, and searching them again in every core
// was four fifths of a warm batch of its cores.

// tailGapKey is a gap as an elfx.Object.Keyed key: the caller's return
// address and the callee's entry, both link-time addresses of the
// module's object.
type tailGapKey struct{ ret, callee uint64 }

// tailGap is a gap's chain in link-time addresses, when local (the
// search's answer is the object's); a gap whose search left the module
// is searched again by each core.
type tailGap struct {
	chain []uint64
	local bool
}

// moduleTailChain is searchTailChain, the answer kept with the object of
// ret's module when the search stayed inside it and the callee is in it.
func (s *symbolizer) moduleTailChain(ret, callee uint64) []uint64 {
	m := s.t.module(ret - 1)
	obj := m.obj()
	if obj == nil || s.t.module(callee) != m {
		chain, _ := s.searchTailChain(ret, callee)
		return chain
	}
	var chain []uint64
	searched := false
	g := obj.Keyed(tailGapKey{ret - m.bias, callee - m.bias}, func() any {
		var local bool
		chain, local = s.searchTailChain(ret, callee)
		searched = true
		if !local {
			return tailGap{}
		}
		rel := make([]uint64, len(chain))
		for i, pc := range chain {
			rel[i] = pc - m.bias
		}
		return tailGap{rel, true}
	}).(tailGap)
	switch {
	case searched:
		return chain
	case !g.local:
		chain, _ = s.searchTailChain(ret, callee)
		return chain
	}
	for _, pc := range g.chain {
		chain = append(chain, pc+m.bias)
	}
	return chain
}

// localTarget reports whether a call target the search resolved (addr,
// ok: callTarget's answer for c) is the answer of m's object alone: an
// address inside m, or a name m's object defines, m being the first
// module searched for names (the executable): a library's name could be
// another module's first, and a name not found was asked of every
// module.
func (s *symbolizer) localTarget(m *module, c tailCallSite, addr uint64, ok bool) bool {
	switch {
	case c.m != m:
		return false
	case c.site.HasTargetAddr:
		return s.t.module(addr) == m
	case c.site.TargetName == "":
		return true // no target, whatever the modules
	}
	return ok && s.t.module(addr) == m && m.core != nil && m.core.Path == s.t.core.Executable
}

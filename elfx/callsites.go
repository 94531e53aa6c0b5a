package elfx

import (
	"debug/dwarf"
	"fmt"
	"sync"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// A function that ends in a tail call (a jmp to another function) leaves
// no return address on the stack: the unwinder goes from the callee
// straight to the caller of the function that jumped. The compiler's
// call-site records (DW_TAG_call_site, GCC's DW_TAG_GNU_call_site before
// DWARF 5) say which calls a function makes and which of them are tail
// calls; gdb rebuilds the missing frames from them. These are the records
// one function's call sites give, read only for the functions a backtrace
// asks about (the DIEs of one subprogram, not the unit's).

// CallSite is one call the compiler recorded.
type CallSite struct {
	// ReturnPC is the link-time address after the call (or, for a tail
	// call, after the jump).
	ReturnPC uint64
	Tail     bool
	// The called function: its link-time entry in this object
	// (HasTargetAddr), or, for a function declared here and defined
	// elsewhere, the name to look up among the process's symbols
	// (TargetName). Neither: an indirect call, whose target is a
	// DWARF expression over the caller's registers.
	TargetAddr    uint64
	HasTargetAddr bool
	TargetName    string
}

// Call-site DWARF the standard library has no names for (GCC's forms
// before DWARF 5), and bounds for hostile DWARF.
const (
	tagGNUCallSite          dwarf.Tag  = 0x4109
	attrGNUCallSiteTarget   dwarf.Attr = 0x2113
	attrGNUTailCall         dwarf.Attr = 0x2115
	attrGNUAllTailCallSites dwarf.Attr = 0x2116
	attrGNUAllCallSites     dwarf.Attr = 0x2117

	maxCallSitesPerFunction = 1 << 16
	maxOriginChain          = 8
)

// functionCalls is what one function's DIEs say about its calls.
type functionCalls struct {
	// sites are not changed once read; where targets is set, the
	// called function of each is read when the site is asked for
	// (site).
	sites []CallSite
	// complete: the function carries DW_AT_call_all_calls or
	// DW_AT_call_all_tail_calls (or their GNU forms), so its tail calls
	// are all listed. Only then may a chain of tail calls go through it.
	complete bool
	// targets, where skimFunctionCalls read the sites, says where each
	// site's called function is. A search asks for the one site of a
	// caller a return address names and for a callee's tail calls: the
	// others' targets were most of the reading (gen-lto: 3,000 DIEs of
	// called functions, a few hundred used).
	mu      sync.Mutex
	targets []siteTarget
}

// siteTarget is where the DIE of a call site's called function is, and,
// once read, the site with its target.
type siteTarget struct {
	at  *cuIndex
	ref dwarf.Offset
	// has: the site names its called function's DIE; own: in the unit
	// of the caller, which the skipper reads (skimTarget).
	has, own bool
	read     bool
	site     CallSite
}

// site returns fc.sites[i] with its called function read.
func (fc *functionCalls) site(i int) CallSite {
	c := fc.sites[i]
	if fc.targets == nil || !fc.targets[i].has {
		return c
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	t := &fc.targets[i]
	if !t.read {
		if !t.own || !c.skimTarget(t.at, t.ref) {
			c.setTarget(t.at, t.ref)
		}
		t.site, t.read = c, true
	}
	return t.site
}

// callSite is fc.site, its reading's panics errors, as functionCalls'.
func (o *Object) callSite(fc *functionCalls, i int) (c CallSite, err error) {
	defer func() {
		if p := recover(); p != nil {
			mapfault.Reraise(p)
			c, err = CallSite{}, fmt.Errorf("elfx: %s: malformed called function of a call site returning to %#x (%v)", o.name, fc.sites[i].ReturnPC, p)
		}
	}()
	return fc.site(i), nil
}

// FunctionEntry returns the link-time entry of the out-of-line function
// containing addr, from the DWARF (the start of its first range, as gdb
// takes a function's entry), else from the symbol table; for Go code
// from .gopclntab, whose entry is the DWARF's.
// With a symbol cache, the answers of FunctionEntry, CallSiteAt and
// TailCalls are kept with the other lookups: a warm run rebuilds tail-call
// frames without reading the DWARF.
func (o *Object) FunctionEntry(addr uint64) (uint64, bool) {
	m := o.state().memo.Load()
	if m != nil {
		if r, ok := memoLoad(m, m.l.entries, addr); ok {
			return r.entry, r.ok
		}
	}
	r := entryResult{}
	if f, ok := o.GoFunc(addr); ok { // Go code (inGoCode)
		r = entryResult{f.Entry, true}
	} else if _, s := o.functionScope(addr); s != nil && len(s.ranges) > 0 {
		r = entryResult{s.ranges[0][0], true}
	} else if sym, ok := o.Symbol(addr); ok {
		r = entryResult{sym.Addr, true}
	}
	if m != nil {
		memoStore(m, m.l.entries, addr, r)
	}
	return r.entry, r.ok
}

// CallSiteAt returns the call site whose return address is ret
// (link-time), recorded in the function that contains ret-1.
func (o *Object) CallSiteAt(ret uint64) (CallSite, bool, error) {
	if ret == 0 {
		return CallSite{}, false, nil
	}
	m := o.state().memo.Load()
	if m != nil {
		if r, ok := memoLoad(m, m.l.calls, ret); ok {
			return r.site, r.ok, nil
		}
	}
	var fc *functionCalls
	var err error
	if !o.inGoCode(ret - 1) {
		fc, err = o.callsOf(ret - 1)
	}
	if err != nil {
		return CallSite{}, false, err
	}
	r := callSiteResult{}
	if fc != nil {
		for i := range fc.sites {
			if fc.sites[i].ReturnPC == ret {
				c, err := o.callSite(fc, i)
				if err != nil {
					return CallSite{}, false, err
				}
				r = callSiteResult{c, true}
				break
			}
		}
	}
	if m != nil {
		memoStore(m, m.l.calls, ret, r)
	}
	return r.site, r.ok, nil
}

// TailCalls returns the tail calls of the function whose link-time entry
// is entry. found is false when no function with DWARF starts at entry;
// complete is false when the function does not claim to list all its
// tail calls (sites is then empty: an incomplete list proves nothing).
func (o *Object) TailCalls(entry uint64) (sites []CallSite, found bool, err error) {
	m := o.state().memo.Load()
	if m != nil {
		if r, ok := memoLoad(m, m.l.tails, entry); ok {
			return r.sites, r.found, nil
		}
	}
	sites, found, err = o.tailCalls(entry)
	if m != nil && err == nil {
		memoStore(m, m.l.tails, entry, tailCallsResult{sites, found})
	}
	return sites, found, err
}

func (o *Object) tailCalls(entry uint64) (sites []CallSite, found bool, err error) {
	if f, ok := o.GoFunc(entry); ok && f.Entry == entry {
		return nil, true, nil // a Go function: no list of its tail calls
	}
	cu, s := o.functionScope(entry)
	if s == nil || len(s.ranges) == 0 || s.ranges[0][0] != entry {
		return nil, false, nil
	}
	fc, err := o.functionCalls(cu, s)
	if err != nil || fc == nil {
		return nil, false, err
	}
	if !fc.complete {
		return nil, true, nil
	}
	for i := range fc.sites {
		if fc.sites[i].Tail {
			c, err := o.callSite(fc, i)
			if err != nil {
				return nil, false, err
			}
			sites = append(sites, c)
		}
	}
	return sites, true, nil
}

// callsOf returns the calls of the function containing addr.
func (o *Object) callsOf(addr uint64) (*functionCalls, error) {
	cu, s := o.functionScope(addr)
	if s == nil {
		return nil, nil
	}
	return o.functionCalls(cu, s)
}

// functionScope finds the unit and out-of-line function scope holding
// addr; nil when the DWARF has none.
func (o *Object) functionScope(addr uint64) (cu *cuIndex, s *scope) {
	x, err := o.dwarfIndex()
	if err != nil || x == nil {
		return nil, nil
	}
	defer func() {
		if p := recover(); p != nil {
			mapfault.Reraise(p)
			cu, s = nil, nil
		}
	}()
	return x.functionScope(addr)
}

func (x *dwarfIndex) functionScope(addr uint64) (*cuIndex, *scope) {
	if x.lazy != nil && !x.unlisted && !x.byPC.covers(addr) {
		if x.lazy.everyUnitListed() {
			return nil, nil
		}
		return x.lazy.unlistedIndex().functionScope(addr)
	}
	var cu *cuIndex
	var sc *scope
	x.byPC.each(addr, func(i int32) bool {
		c := x.unit(i)
		if c.load(x) != nil {
			return true
		}
		if scopes, s, ok := c.functionAt(x, addr); ok {
			cu, sc = c, &scopes[s]
		}
		return sc == nil
	})
	return cu, sc
}

// functionCalls reads (once) the call sites among the DIEs of the
// function scope s of cu.
func (o *Object) functionCalls(cu *cuIndex, s *scope) (fc *functionCalls, err error) {
	key := cu.base + s.die
	memo := &o.state().callSites
	if v, ok := memo.Load(key); ok {
		return v.(*functionCalls), nil
	}
	defer func() {
		if p := recover(); p != nil {
			mapfault.Reraise(p)
			fc, err = nil, fmt.Errorf("elfx: %s: malformed call sites in the function at DIE %#x (%v)", o.name, key, p)
		}
	}()
	fc, err = readFunctionCalls(cu, s.die)
	if err != nil {
		return nil, fmt.Errorf("elfx: %s: call sites of the function at DIE %#x: %w", o.name, key, err)
	}
	v, _ := memo.LoadOrStore(key, fc)
	return v.(*functionCalls), nil
}

// readFunctionCalls walks the subprogram DIE at off and its children
// (lexical blocks, inlined calls, never nested functions) for call sites:
// with the unit's skipper where it can (callsiteskip.go), else with
// debug/dwarf.
func readFunctionCalls(cu *cuIndex, off dwarf.Offset) (*functionCalls, error) {
	if fc, ok := skimFunctionCalls(cu, off); ok {
		return fc, nil
	}
	return readFunctionCallsReader(cu, off)
}

// readFunctionCallsReader is readFunctionCalls reading every DIE with
// debug/dwarf.
func readFunctionCallsReader(cu *cuIndex, off dwarf.Offset) (*functionCalls, error) {
	r := cu.d.Reader()
	r.Seek(off)
	fn, err := r.Next()
	if err != nil {
		return nil, err
	}
	if fn == nil || fn.Tag != dwarf.TagSubprogram {
		return nil, fmt.Errorf("no subprogram at DIE %#x", off)
	}
	fc := &functionCalls{complete: flagOnChain(cu, fn, dwarf.AttrCallAllCalls, dwarf.AttrCallAllTailCalls, attrGNUAllCallSites, attrGNUAllTailCallSites)}
	if !fn.Children {
		return fc, nil
	}
	for depth := 1; depth > 0; {
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			depth--
			continue
		}
		switch e.Tag {
		case dwarf.TagCallSite, tagGNUCallSite:
			if c, ok := callSiteOf(cu, e); ok && len(fc.sites) < maxCallSitesPerFunction {
				fc.sites = append(fc.sites, c)
			}
			r.SkipChildren() // parameters
			continue
		case dwarf.TagLexDwarfBlock, dwarf.TagInlinedSubroutine:
			if e.Children {
				if depth >= maxInlineDepth {
					r.SkipChildren()
					continue
				}
				depth++
			}
			continue
		}
		r.SkipChildren()
	}
	return fc, nil
}

// callSiteOf reads one call-site DIE: its return address
// (DW_AT_call_return_pc, DW_AT_low_pc in the GNU form), whether it is a
// tail call, and its target as gdb takes it: DW_AT_call_target (an
// expression: unknown here), else DW_AT_call_origin (DW_AT_abstract_origin
// in the GNU form) naming the called function's DIE.
func callSiteOf(cu *cuIndex, e *dwarf.Entry) (CallSite, bool) {
	ret, ok := e.Val(dwarf.AttrCallReturnPC).(uint64)
	if !ok {
		if ret, ok = e.Val(dwarf.AttrLowpc).(uint64); !ok {
			return CallSite{}, false
		}
	}
	c := CallSite{ReturnPC: ret}
	c.Tail, _ = e.Val(dwarf.AttrCallTailCall).(bool)
	if !c.Tail {
		c.Tail, _ = e.Val(attrGNUTailCall).(bool)
	}
	if e.Val(dwarf.AttrCallTarget) != nil || e.Val(attrGNUCallSiteTarget) != nil {
		return c, true
	}
	at, ref, ok := cu.ref(e, dwarf.AttrCallOrigin)
	if !ok {
		if at, ref, ok = cu.ref(e, dwarf.AttrAbstractOrigin); !ok {
			return c, true
		}
	}
	c.setTarget(at, ref)
	return c, true
}

// setTarget sets the called function of c from its DIE, at ref of at:
// a declaration's name, else a definition's entry.
func (c *CallSite) setTarget(at *cuIndex, ref dwarf.Offset) {
	t, err := at.entryAt(ref)
	if err != nil || t == nil {
		return
	}
	if decl, _ := t.Val(dwarf.AttrDeclaration).(bool); decl {
		c.TargetName = linkageNameOnChain(at, t)
		return
	}
	if lo, ok := t.Val(dwarf.AttrLowpc).(uint64); ok {
		c.TargetAddr, c.HasTargetAddr = lo, true
	} else if rs, err := at.ranges(t); err == nil && len(rs) > 0 {
		c.TargetAddr, c.HasTargetAddr = rs[0][0], true
	}
}

// flagOnChain reports whether e, or a DIE its DW_AT_abstract_origin or
// DW_AT_specification chain leads to, sets any of the flags (gdb's
// dwarf2_attr follows the same chain).
func flagOnChain(cu *cuIndex, e *dwarf.Entry, flags ...dwarf.Attr) bool {
	for range maxOriginChain {
		for _, f := range flags {
			if v, _ := e.Val(f).(bool); v {
				return true
			}
		}
		var ok bool
		if cu, e, ok = nextOnChain(cu, e); !ok {
			return false
		}
	}
	return false
}

// linkageNameOnChain is the name a declared function is found by among
// the symbols: its linkage name, else its DW_AT_name, along the
// specification chain.
func linkageNameOnChain(cu *cuIndex, e *dwarf.Entry) string {
	name := ""
	for range maxOriginChain {
		if s, ok := cu.stringAttr(e, dwarf.AttrLinkageName); ok && s != "" {
			return s
		}
		if s, ok := cu.stringAttr(e, attrMIPSLinkageName); ok && s != "" {
			return s
		}
		if s, ok := cu.stringAttr(e, dwarf.AttrName); ok && name == "" {
			name = s
		}
		var ok bool
		if cu, e, ok = nextOnChain(cu, e); !ok {
			break
		}
	}
	return name
}

// nextOnChain reads the DIE e's attributes continue in (see origin), e
// read from cu; false at the end of the chain or where it loops on e.
func nextOnChain(cu *cuIndex, e *dwarf.Entry) (*cuIndex, *dwarf.Entry, bool) {
	t, ref, ok := cu.origin(e)
	if !ok {
		return nil, nil, false
	}
	next, err := t.entryAt(ref)
	if err != nil || next == nil || (t == cu && next.Offset == e.Offset) {
		return nil, nil, false
	}
	return t, next, true
}

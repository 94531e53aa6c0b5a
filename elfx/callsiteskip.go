package elfx

import (
	"debug/dwarf"
	"math"
)

// A function's call sites lie among its children: its parameters and
// variables, the lexical blocks and inlined calls around them, each call
// site's own parameters. Read with debug/dwarf, every one of those DIEs
// had all its attributes decoded (location lists, types, names copied
// out of .debug_str) to be passed over: the tail-call search's reading
// was a tenth of gen-lto's cold report and most of the first core's
// share of a cold triage. skimFunctionCalls walks the function with the
// unit's dieSkipper (dieskip.go), as the scope walks do
// (scopecursor.go): it steps over the DIEs that are not call sites nor
// hold them by their abbreviations' sizes, and decodes of a call site
// only the attributes callSiteOf reads, where their forms are ones it
// decodes as debug/dwarf does; a call site it cannot decode so is read
// with debug/dwarf and callSiteOf. Where the skipper meets anything it
// cannot step over, the whole function is read again by
// readFunctionCallsReader: the answers are the same either way. The
// DIE of a site's called function is read only when the site is asked
// for (functionCalls.site), by the skipper where it is in the caller's
// unit (skimTarget).

// skimFunctionCalls is readFunctionCalls with the unit's skipper; ok is
// false where readFunctionCallsReader must read the function.
func skimFunctionCalls(cu *cuIndex, off dwarf.Offset) (*functionCalls, bool) {
	s := cu.skip
	if s == nil || !s.unitKnown {
		return nil, false
	}
	r := cu.d.Reader()
	r.Seek(off)
	fn, err := r.Next()
	if err != nil || fn == nil || fn.Tag != dwarf.TagSubprogram || fn.Offset != off {
		return nil, false
	}
	sh, at, err := s.code(uint64(cu.base + off))
	if err != nil || sh == nil || sh.tag != fn.Tag || sh.children != fn.Children {
		return nil, false // debug/dwarf reads it otherwise
	}
	pos, err := s.attrs(at, sh)
	if err != nil {
		return nil, false
	}
	fc := &functionCalls{complete: flagOnChain(cu, fn, dwarf.AttrCallAllCalls, dwarf.AttrCallAllTailCalls, attrGNUAllCallSites, attrGNUAllTailCallSites)}
	if !fn.Children {
		return fc, true
	}
	for depth := 1; depth > 0; {
		if pos >= s.end {
			return nil, false // debug/dwarf's Reader would go on into the next unit
		}
		sh, at, err := s.code(pos)
		if err != nil {
			return nil, false
		}
		if sh == nil {
			depth--
			pos = at
			continue
		}
		switch sh.tag {
		case dwarf.TagCallSite, tagGNUCallSite:
			c, target, isSite, decoded := skimCallSite(cu, at, sh)
			if !decoded {
				die := dwarf.Offset(pos) - cu.base
				r.Seek(die)
				e, err := r.Next()
				if err != nil || e == nil || e.Offset != die || e.Tag != sh.tag {
					return nil, false
				}
				c, isSite = callSiteOf(cu, e)
				target = siteTarget{}
			}
			if isSite && len(fc.sites) < maxCallSitesPerFunction {
				fc.sites = append(fc.sites, c)
				fc.targets = append(fc.targets, target)
			}
			pos, err = s.tree(pos) // and its parameters
		case dwarf.TagLexDwarfBlock, dwarf.TagInlinedSubroutine:
			if sh.children && depth >= maxInlineDepth {
				pos, err = s.tree(pos)
				break
			}
			if pos, err = s.attrs(at, sh); sh.children {
				depth++
			}
		default:
			pos, err = s.tree(pos)
		}
		if err != nil {
			return nil, false
		}
	}
	return fc, true
}

// skimCallSite is callSiteOf for the call site of shape sh whose
// attributes start at at, read with cu's skipper, but for its called
// function: where the site names its DIE, target says where it is, to
// be read when the site is asked for (functionCalls.site). decoded is
// false where callSiteOf must read it: a form of an attribute it reads
// that is not decoded here, or any form debug/dwarf reads with a
// section it may lack (plainForm), so may fail on.
func skimCallSite(cu *cuIndex, at uint64, sh *dieShape) (c CallSite, target siteTarget, isSite, decoded bool) {
	s := cu.skip
	var ret, low uint64
	var hasRet, hasLow, hasTarget bool
	var tail, gnuTail, hasTail, hasGNUTail bool
	// The origins: DW_AT_call_origin, else DW_AT_abstract_origin, the
	// first of each (debug/dwarf's Val).
	var origins [2]struct {
		at       *cuIndex
		ref      dwarf.Offset
		has, set bool
	}
	for i, f := range sh.forms {
		if !plainForm(f) {
			return c, target, false, false
		}
		next, err := s.value(at, f, 0)
		if err != nil {
			return c, target, false, false
		}
		switch a := sh.attrs[i]; a {
		case dwarf.AttrCallReturnPC, dwarf.AttrLowpc:
			if (a == dwarf.AttrCallReturnPC && hasRet) || (a == dwarf.AttrLowpc && hasLow) {
				break
			}
			if f != formAddr || (s.addrSize != 4 && s.addrSize != 8) {
				return c, target, false, false
			}
			if a == dwarf.AttrCallReturnPC {
				ret, hasRet = s.addr(at), true
			} else {
				low, hasLow = s.addr(at), true
			}
		case dwarf.AttrCallTailCall, attrGNUTailCall:
			v, ok := skimFlag(s, at, f)
			if !ok {
				return c, target, false, false
			}
			if a == dwarf.AttrCallTailCall && !hasTail {
				tail, hasTail = v, true
			} else if a == attrGNUTailCall && !hasGNUTail {
				gnuTail, hasGNUTail = v, true
			}
		case dwarf.AttrCallTarget, attrGNUCallSiteTarget:
			hasTarget = true
		case dwarf.AttrCallOrigin, dwarf.AttrAbstractOrigin:
			o := &origins[0]
			if a == dwarf.AttrAbstractOrigin {
				o = &origins[1]
			}
			if o.set {
				break
			}
			t, ref, ok, known := skimRef(cu, at, next, f)
			if !known {
				return c, target, false, false
			}
			o.at, o.ref, o.has, o.set = t, ref, ok, true
		}
		at = next
	}
	switch {
	case hasRet:
		c.ReturnPC = ret
	case hasLow:
		c.ReturnPC = low
	default:
		return CallSite{}, target, false, true
	}
	c.Tail = tail || gnuTail
	if hasTarget {
		return c, target, true, true
	}
	for _, o := range origins {
		if o.has {
			target = siteTarget{at: o.at, ref: o.ref, has: true, own: o.at == cu}
			break
		}
	}
	return c, target, true, true
}

// skimTarget is setTarget for a called function's DIE in cu, at ref,
// read with cu's skipper (only cu's: another unit's may be in the making
// on another goroutine); false where setTarget must read it: a
// declaration (its name is found along its chain), DW_AT_ranges that
// rangeList would leave to debug/dwarf, a form not decoded here, a
// string debug/dwarf would not find.
func (c *CallSite) skimTarget(cu *cuIndex, ref dwarf.Offset) bool {
	s := cu.skip
	pos := uint64(cu.base + ref) // dwarf.Offset's 32 bits, as debug/dwarf seeks
	if pos < cu.header.die || pos >= s.end {
		return false
	}
	sh, at, err := s.code(pos)
	if err != nil || sh == nil {
		return false
	}
	// str reads no field of the reader but its skipper's and sections.
	strs := &originReader{s: s, l: cu.lazy}
	var low, rangesOff uint64
	var hasLow, hasHigh, hasDecl, decl, hasRanges bool
	for i, f := range sh.forms {
		if !plainForm(f) {
			return false
		}
		next, err := s.value(at, f, 0)
		if err != nil {
			return false
		}
		if f == formStrp || f == formLineStrp {
			if _, ok := strs.str(at, next, f); !ok {
				return false // debug/dwarf fails on the DIE
			}
		}
		switch sh.attrs[i] {
		case dwarf.AttrDeclaration:
			if !hasDecl {
				v, ok := skimFlag(s, at, f)
				if !ok {
					return false
				}
				decl, hasDecl = v, true
			}
		case dwarf.AttrLowpc:
			if !hasLow {
				if f != formAddr || (s.addrSize != 4 && s.addrSize != 8) {
					return false
				}
				low, hasLow = s.addr(at), true
			}
		case dwarf.AttrHighpc:
			hasHigh = true
		case dwarf.AttrRanges:
			if !hasRanges {
				if f != formSecOffset { // debug/dwarf's ClassRangeListPtr, an int64
					return false
				}
				rangesOff, hasRanges = s.offset(at), true
			}
		}
		at = next
	}
	switch {
	case decl:
		return false
	case hasLow:
		c.TargetAddr, c.HasTargetAddr = low, true
	case hasRanges:
		// cu.ranges's answer: rangeList's, where it decodes the list.
		if hasHigh || cu.global || cu.abbrevEnd == 0 || sh.tag == dwarf.TagCompileUnit || rangesOff > math.MaxInt64 {
			return false
		}
		rs, ok := cu.rangeListAt(rangesOff, dwarf.ClassRangeListPtr)
		if !ok {
			return false
		}
		if len(rs) > 0 {
			c.TargetAddr, c.HasTargetAddr = rs[0][0], true
		}
	}
	return true
}

// offset reads the section offset (DW_FORM_sec_offset) at pos; the
// caller knows it is in the unit.
func (s *dieSkipper) offset(pos uint64) uint64 {
	if s.offSize == 8 {
		return s.order.Uint64(s.info[pos:s.end])
	}
	return uint64(s.order.Uint32(s.info[pos:s.end]))
}

// skimFlag reads the flag of form f at pos as debug/dwarf's Val gives
// it; ok is false for a form of another class.
func skimFlag(s *dieSkipper, pos, f uint64) (v, ok bool) {
	switch f {
	case formFlag:
		return s.info[pos] == 1, true // debug/dwarf's test
	case formFlagPresent:
		return true, true
	}
	return false, false
}

// skimRef places the reference of form f in [pos, next) of cu as
// cu.ref would the value debug/dwarf reads: ok is cu.ref's answer.
// known is false for a form whose value debug/dwarf gives otherwise
// than decoded here (into a supplementary file, a type signature,
// DW_FORM_ref_addr where cu's dwarf.Data reads it as a reference).
func skimRef(cu *cuIndex, pos, next, f uint64) (t *cuIndex, ref dwarf.Offset, ok, known bool) {
	s := cu.skip
	b := s.info[pos:next]
	var v uint64
	switch f {
	case formRef1:
		v = uint64(b[0])
	case formRef2:
		v = uint64(s.order.Uint16(b))
	case formRef4:
		v = uint64(s.order.Uint32(b))
	case formRef8:
		v = s.order.Uint64(b)
	case formRefUdata:
		v, _ = readULEB(b)
	case formRefAddr:
		if !cu.refAddr {
			return nil, 0, false, false
		}
		switch len(b) { // read as data of its size: a constant
		case 4:
			v = uint64(s.order.Uint32(b))
		case 8:
			v = s.order.Uint64(b)
		default:
			return nil, 0, false, false
		}
		if v > math.MaxInt64 {
			return nil, 0, false, true // negative: cu.ref refuses it
		}
		t, ref, ok := cu.refAddrTarget(v)
		return t, ref, ok, true
	default:
		return nil, 0, false, false
	}
	// debug/dwarf adds the unit's offset in the Data, in 32 bits.
	return cu, dwarf.Offset(v) + (dwarf.Offset(s.unit) - cu.base), true, true
}

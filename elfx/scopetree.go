package elfx

import (
	"debug/dwarf"
	"fmt"
	"sort"
	"sync"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// A unit's first walk reads its top-level DIEs only: the subprograms
// (inside namespaces, classes and modules too) and skips their children:
// by the abbreviations' sizes (dieskip.go, scopecursor.go), or with
// debug/dwarf, by DW_AT_sibling where the compiler gave one. A big LTO
// unit holds thousands of functions and a frame needs one: the inlined
// calls, lexical blocks and nested functions of a subprogram are read
// when a lookup lands in it (expand), or when a name is looked up among
// them (expandAround: function-local classes qualify the names of their
// members).

// walkedTag reports whether the walks read DIEs of tag t: the others,
// and their children, hold no function with code.
func walkedTag(t dwarf.Tag) bool {
	switch t {
	case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine, dwarf.TagLexDwarfBlock,
		dwarf.TagNamespace, dwarf.TagModule,
		dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
		return true
	}
	return false
}

// funcBody is the subtree of one subprogram of the unit's first walk.
type funcBody struct {
	start dwarf.Offset // the subprogram's DIE
	// end is the first DIE after its subtree, or the null entries
	// before it (or past the unit): a DIE in [start, end) is inside it.
	end   dwarf.Offset
	scope int32 // the subprogram in cu.scopes
	qual  int32 // the names around it: a node of cu.qualNodes, -1 for none

	once sync.Once
	err  error
	// tree[0] is the subprogram; the other scopes are the inlined
	// calls inside it and nested subprograms with code (roots).
	tree  []scope
	roots []int32
	quals []qualAt // of the subprograms inside it
	// qualNodes are the scopes with names inside it; [0] stands for
	// the names around the subprogram.
	qualNodes []qualNode
}

// scopeWalk collects scopes from a walk over DIEs.
type scopeWalk struct {
	cu     *cuIndex
	x      *dwarfIndex
	c      dieCursor
	scopes []scope
	roots  []int32 // the subprograms among scopes
	// top: the unit's first walk, which leaves subprograms' children
	// for later (bodies).
	top    bool
	bodies []*funcBody
	open   *funcBody // skipped last, where c cannot tell its end: the next DIE read
	quals  []qualAt
	nodes  []qualNode
}

// next reads the next DIE, giving the subtree skipped before its end.
func (w *scopeWalk) next() (*dwarf.Entry, error) {
	e, err := w.c.next()
	if w.open != nil && (err != nil || e == nil || e.Tag != 0) {
		// A null entry carries no offset: the end is the next DIE.
		w.open.end = ^dwarf.Offset(0)
		if err == nil && e != nil {
			w.open.end = e.Offset
		}
		w.open = nil
	}
	return e, err
}

// walk reads the children of the DIE just read, under the scope parent
// (-1 for none) and the qualifying names of node qual of w.nodes (-1
// for none).
func (w *scopeWalk) walk(parent, qual int32) error {
	// stack[i] is the scope enclosing entries at depth i+1, -1 for none;
	// quals[i] the node of the qualifying names around them.
	stack := []int32{parent}
	quals := []int32{qual}
	for len(stack) > 0 {
		e, err := w.next()
		if err != nil {
			return fmt.Errorf("DIEs: %w", err)
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			stack = stack[:len(stack)-1]
			quals = quals[:len(quals)-1]
			continue
		}
		if !walkedTag(e.Tag) {
			w.c.skipChildren()
			continue
		}
		parent := stack[len(stack)-1]
		qual := quals[len(quals)-1]
		self := parent // what this entry's children see as enclosing scope
		selfQual := qual
		switch e.Tag {
		case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine:
			if e.Tag == dwarf.TagSubprogram && qual >= 0 {
				w.quals = append(w.quals, qualAt{off: e.Offset, node: qual})
			}
			ranges, _ := w.c.ranges(e)
			if len(ranges) == 0 || (e.Tag == dwarf.TagInlinedSubroutine && parent < 0) {
				// Declarations and abstract instances: their inlined
				// children have no code either.
				w.c.skipChildren()
				continue
			}
			s := scope{ranges: ranges, die: e.Offset}
			if e.Tag == dwarf.TagInlinedSubroutine {
				s.inlined = true
				s.callFile, _ = e.Val(dwarf.AttrCallFile).(int64)
				s.callLine, _ = e.Val(dwarf.AttrCallLine).(int64)
				s.callCol, _ = e.Val(dwarf.AttrCallColumn).(int64)
			}
			self = int32(len(w.scopes))
			w.scopes = append(w.scopes, s)
			if e.Tag == dwarf.TagSubprogram {
				w.roots = append(w.roots, self)
				if w.top && e.Children {
					b := &funcBody{start: e.Offset, scope: self, qual: qual}
					w.scopes[self].body = b
					w.bodies = append(w.bodies, b)
					if end, known := w.c.skipChildren(); known {
						b.end = end
					} else {
						w.open = b
					}
					continue
				}
			} else {
				w.scopes[parent].children = append(w.scopes[parent].children, self)
			}
		case dwarf.TagNamespace, dwarf.TagModule,
			dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
			// Transparent: may contain function definitions (namespaces
			// in GCC's C++ output, Fortran modules) or inlined calls.
			// Its name is read if a name of a function inside needs it
			// (scopequal.go).
			selfQual = int32(len(w.nodes))
			w.nodes = append(w.nodes, qualNode{die: e.Offset, outer: qual})
		}
		if e.Children {
			stack = append(stack, self)
			quals = append(quals, selfQual)
		}
	}
	return nil
}

// loadScopes is the unit's first walk: its subprograms with code, their
// children left for expand.
func (cu *cuIndex) loadScopes(x *dwarfIndex) error {
	if cu.lazy != nil {
		cu.skip = cu.lazy.newSkipper(cu, false)
	}
	c, err := cu.newCursor(cu.entry.Offset)
	if err != nil {
		return fmt.Errorf("DIEs: %w", err)
	}
	if !cu.entry.Children {
		return nil
	}
	w := &scopeWalk{cu: cu, x: x, c: c, top: true}
	err = w.walk(-1, -1)
	if w.open != nil {
		w.open.end = ^dwarf.Offset(0) // the walk failed inside it
	}
	cu.scopes, cu.bodies, cu.quals, cu.qualNodes = w.scopes, w.bodies, w.quals, w.nodes
	var funcs []interval
	for _, i := range w.roots {
		for _, rg := range cu.scopes[i].ranges {
			funcs = append(funcs, interval{lo: rg[0], hi: rg[1], idx: i})
		}
	}
	cu.funcs = newIntervalIndex(funcs)
	return err
}

// expand reads the subtree of b once: the inlined calls and nested
// subprograms inside it.
func (cu *cuIndex) expand(x *dwarfIndex, b *funcBody) error {
	b.once.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				mapfault.Reraise(p)
				b.err = fmt.Errorf("elfx: %s: malformed DWARF in the function at DIE %#x (%v)", x.name, cu.base+b.start, p)
			}
		}()
		top := cu.scopes[b.scope]
		top.body = nil
		c, err := cu.newCursor(b.start)
		if err != nil {
			b.err = fmt.Errorf("elfx: %s: DIE %#x: %w", x.name, cu.base+b.start, err)
			return
		}
		w := &scopeWalk{cu: cu, x: x, c: c, scopes: []scope{top}, roots: []int32{0}}
		qual := int32(-1)
		if b.qual >= 0 {
			w.nodes, qual = []qualNode{{name: cu.qualName(cu.qualNodes, b.qual), named: true}}, 0
		}
		b.err = w.walk(0, qual)
		b.tree, b.roots, b.quals, b.qualNodes = w.scopes, w.roots, w.quals, w.nodes
	})
	return b.err
}

// functionAt returns the scopes of the out-of-line function holding pc
// and its index there: a top-level subprogram's subtree, read now, else
// (pc in no top-level subprogram) a nested one, for which every subtree
// of the unit is read. The unit is loaded.
func (cu *cuIndex) functionAt(x *dwarfIndex, pc uint64) ([]scope, int32, bool) {
	sub := int32(-1)
	cu.funcs.each(pc, func(s int32) bool { sub = s; return false })
	if sub >= 0 {
		b := cu.scopes[sub].body
		if b == nil {
			return cu.scopes, sub, true // no children: nothing to read
		}
		if cu.expand(x, b) != nil && len(b.tree) == 0 {
			return cu.scopes, sub, true
		}
		return b.tree, 0, true
	}
	for _, b := range cu.bodies {
		cu.expand(x, b)
		for _, r := range b.roots[min(1, len(b.roots)):] {
			if b.tree[r].contains(pc) {
				return b.tree, r, true
			}
		}
	}
	return nil, -1, false
}

// expandAround reads the subtree holding the DIE at off, if a
// subprogram's does: the names around it are known then.
func (cu *cuIndex) expandAround(x *dwarfIndex, off dwarf.Offset) {
	i := sort.Search(len(cu.bodies), func(i int) bool { return cu.bodies[i].start >= off })
	if i > 0 && off < cu.bodies[i-1].end {
		cu.expand(x, cu.bodies[i-1])
	}
}

package elfx

import (
	"debug/dwarf"
	"sort"
)

// The names around a subprogram ("geo::Point<int>"), for gdb-style
// qualified names of functions without a linkage name (static and
// inlined C++ functions). The scope walks (scopetree.go) record, for
// each subprogram inside namespaces, modules or classes, the innermost
// of them: a node whose name is read, and joined with its outer
// nodes', only when a frame's name needs it. A Rust unit has thousands
// of subprograms inside modules: decoding each module's DIE and
// joining its name during the walk touched all of .debug_str, and a
// shared map written for each subprogram was a tenth of a cold
// report's time.

// qualAt gives the node of the names around the subprogram DIE at off.
// The walks record them in DIE order, each unit's and each subtree's in
// a slice of its own.
type qualAt struct {
	off  dwarf.Offset
	node int32
}

// qualNode is a namespace, module or class: its DIE and the node around
// it (-1 for none); or, named, the names it stands for.
type qualNode struct {
	die   dwarf.Offset
	outer int32
	name  string
	named bool
}

// qualName returns the names node i of nodes stands for, outermost
// first.
func (cu *cuIndex) qualName(nodes []qualNode, i int32) string {
	var chain []int32 // innermost first
	for ; i >= 0 && len(chain) <= len(nodes); i = nodes[i].outer {
		chain = append(chain, i)
		if nodes[i].named {
			break
		}
	}
	qual := ""
	for k := len(chain) - 1; k >= 0; k-- {
		n := &nodes[chain[k]]
		if n.named {
			qual = n.name
			continue
		}
		e, err := cu.entryAt(n.die)
		if err != nil || e == nil {
			continue
		}
		name, _ := cu.stringAttr(e, dwarf.AttrName)
		if name == "" && e.Tag == dwarf.TagNamespace {
			name = "(anonymous namespace)"
		}
		if name != "" {
			qual = joinQual(qual, name)
		}
	}
	return qual
}

// qualOf returns the names around the subprogram DIE at off as the
// walks recorded them: the unit is loaded, and the subtree holding off,
// if a subprogram's does, expanded (expandAround).
func (cu *cuIndex) qualOf(off dwarf.Offset) string {
	quals, nodes := cu.quals, cu.qualNodes
	i := sort.Search(len(cu.bodies), func(i int) bool { return cu.bodies[i].start >= off })
	if i > 0 && off < cu.bodies[i-1].end {
		quals, nodes = cu.bodies[i-1].quals, cu.bodies[i-1].qualNodes
	}
	j := sort.Search(len(quals), func(j int) bool { return quals[j].off >= off })
	if j < len(quals) && quals[j].off == off {
		return cu.qualName(nodes, quals[j].node)
	}
	return ""
}

// unitHolding returns the unit whose walks record the DIE at off of
// at's dwarf.Data, and its offset there: at itself, but where units
// share one dwarf.Data over every unit (an eager index, or a lazy one
// that had to read the whole section: openUnit) the unit off lies in.
func (x *dwarfIndex) unitHolding(at *cuIndex, off dwarf.Offset) (*cuIndex, dwarf.Offset) {
	switch {
	case at.lazy == nil:
		i := sort.Search(len(x.cus), func(i int) bool { return x.cus[i].off > off }) - 1
		if i >= 0 && x.cus[i].d == at.d {
			return x.cus[i], off
		}
	case at.global:
		if t, err := at.lazy.unitAt(uint64(off)); err == nil && off >= t.base {
			return t, off - t.base
		}
	}
	return at, off
}

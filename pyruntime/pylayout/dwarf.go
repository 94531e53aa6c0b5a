package pylayout

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/coreunwind/coreunwind/pyruntime/pylayout/internal/spec"
)

// ErrNoDWARFLayout says the debug information lacks a type or member the
// layout needs.
var ErrNoDWARFLayout = errors.New("no CPython layout in the DWARF")

// FromDWARF reads the layout of CPython v built as b from the debug
// information of libpython (or of a python executable linking it
// statically) for a target of byte order order: the same members the
// generated table measures, looked up in the types the compiler
// describes. Every member v has must be found.
func FromDWARF(d *dwarf.Data, order binary.ByteOrder, v Version, b Build) (Layout, error) {
	if v.Major != 3 {
		return Layout{}, fmt.Errorf("CPython %s: %w", v, ErrUnknownVersion)
	}
	var members []spec.Member
	for _, m := range spec.Members {
		if m.In(v.Minor, b&FreeThreaded != 0) {
			members = append(members, m)
		}
	}
	if len(members) == 0 {
		return Layout{}, fmt.Errorf("CPython %s: %w", v, ErrUnknownVersion)
	}
	idx, err := indexTypes(d, members)
	idx.order = order
	if err != nil {
		return Layout{}, err
	}
	l := Empty()
	l.Version, l.Build, l.Source = v, b, FromDWARFInfo
	var missing []string
	for _, m := range members {
		val, ok := idx.measure(m)
		if m.Kind == spec.OffsetOf || m.Kind == spec.SizeOf {
			// Offsets and sizes lie within any struct CPython has: a
			// negative one would read as Absent, a huge one is garbage.
			ok = ok && val >= 0 && val < maxStructSize
		}
		if !ok {
			missing = append(missing, m.CType+"."+m.Member)
			continue
		}
		if err := l.Set(m.Path, val); err != nil {
			return Layout{}, err
		}
	}
	if len(missing) > 0 {
		return Layout{}, fmt.Errorf("CPython %s: %w: %s", v, ErrNoDWARFLayout, strings.Join(missing, ", "))
	}
	return l, nil
}

// typeIndex is where the types and enumerators the members name are
// described: the first typedef of each name, the first complete struct or
// union of each tag, the value of each enumerator.
type typeIndex struct {
	d           *dwarf.Data
	order       binary.ByteOrder
	typedefs    map[string]dwarf.Offset
	tags        map[string]dwarf.Offset
	enumerators map[string]int64
}

// indexTypes reads the top level of every compilation unit once, looking
// into enumerations only: members are read later through d.Type.
func indexTypes(d *dwarf.Data, members []spec.Member) (*typeIndex, error) {
	idx := &typeIndex{d: d, typedefs: map[string]dwarf.Offset{}, tags: map[string]dwarf.Offset{}, enumerators: map[string]int64{}}
	wantTypedef, wantEnum := map[string]bool{}, map[string]bool{}
	for _, m := range members {
		if m.Kind == spec.Enumerator {
			wantEnum[m.Member] = true
		} else if !strings.HasPrefix(m.CType, "struct ") {
			wantTypedef[m.CType] = true
		}
	}
	r := d.Reader()
	depth := 0
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("reading DWARF types: %w", err)
		}
		if e == nil {
			return idx, nil
		}
		if e.Tag == 0 {
			depth--
			continue
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		switch {
		case depth == 0 && (e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit):
			// Partial units hold the types dwz moved out of compile units.
		case depth == 2 && e.Tag == dwarf.TagEnumerator:
			if v, ok := e.Val(dwarf.AttrConstValue).(int64); ok && wantEnum[name] {
				if _, seen := idx.enumerators[name]; !seen {
					idx.enumerators[name] = v
				}
			}
		case depth == 1 && e.Tag == dwarf.TagEnumerationType:
		case depth == 1 && e.Tag == dwarf.TagTypedef && wantTypedef[name]:
			if _, seen := idx.typedefs[name]; !seen {
				idx.typedefs[name] = e.Offset
			}
			r.SkipChildren()
			continue
		case depth == 1 && (e.Tag == dwarf.TagStructType || e.Tag == dwarf.TagUnionType) && name != "":
			if decl, _ := e.Val(dwarf.AttrDeclaration).(bool); !decl {
				if _, seen := idx.tags[name]; !seen {
					idx.tags[name] = e.Offset
				}
			}
			r.SkipChildren()
			continue
		default:
			r.SkipChildren()
			continue
		}
		if e.Children {
			depth++
		}
	}
}

// typeOf is the type a member's CType names, its typedefs and qualifiers
// stripped; a struct only declared where the typedef was read is replaced
// by the complete one of the same tag.
func (idx *typeIndex) typeOf(ctype string) (dwarf.Type, bool) {
	var t dwarf.Type
	var err error
	if tag, ok := strings.CutPrefix(ctype, "struct "); ok {
		off, found := idx.tags[tag]
		if !found {
			return nil, false
		}
		t, err = idx.d.Type(off)
	} else {
		off, found := idx.typedefs[ctype]
		if !found {
			return nil, false
		}
		t, err = idx.d.Type(off)
	}
	if err != nil {
		return nil, false
	}
	return idx.complete(t), true
}

// complete strips typedefs and qualifiers and completes declared structs.
func (idx *typeIndex) complete(t dwarf.Type) dwarf.Type {
	for range 16 { // typedef chains are short; a cycle is malformed DWARF
		switch tt := t.(type) {
		case *dwarf.TypedefType:
			t = tt.Type
		case *dwarf.QualType:
			t = tt.Type
		case *dwarf.StructType:
			if tt.Incomplete && tt.StructName != "" {
				if off, ok := idx.tags[tt.StructName]; ok {
					if full, err := idx.d.Type(off); err == nil {
						return full
					}
				}
			}
			return t
		default:
			return t
		}
	}
	return t
}

// measure is m's value, or false where the DWARF lacks it.
func (idx *typeIndex) measure(m spec.Member) (int64, bool) {
	if m.Kind == spec.Enumerator {
		v, ok := idx.enumerators[m.Member]
		return v, ok
	}
	t, ok := idx.typeOf(m.CType)
	if !ok {
		return 0, false
	}
	switch m.Kind {
	case spec.SizeOf:
		return t.Size(), t.Size() > 0
	case spec.OffsetOf:
		off, _, ok := idx.field(t, m.Member)
		return off, ok
	case spec.BitMask:
		container, field, _ := strings.Cut(m.Member, ".")
		_, ct, ok := idx.field(t, container)
		if !ok {
			return 0, false
		}
		return bitMask(idx.complete(ct), field, idx.order)
	}
	return 0, false
}

// field finds the member path ("interpreters.head") in t, through
// anonymous structs and unions as C does, returning its offset and type.
func (idx *typeIndex) field(t dwarf.Type, path string) (int64, dwarf.Type, bool) {
	var off int64
	for name := range strings.SplitSeq(path, ".") {
		st, ok := idx.complete(t).(*dwarf.StructType)
		if !ok {
			return 0, nil, false
		}
		o, ft, found := idx.member(st, name, 0)
		if !found {
			return 0, nil, false
		}
		off += o
		t = ft
	}
	return off, t, true
}

// member finds name among st's fields or those of its anonymous members,
// at most a few levels deep.
func (idx *typeIndex) member(st *dwarf.StructType, name string, depth int) (int64, dwarf.Type, bool) {
	for _, f := range st.Field {
		if f.Name == name {
			return f.ByteOffset, f.Type, true
		}
	}
	if depth > 4 {
		return 0, nil, false
	}
	for _, f := range st.Field {
		if f.Name != "" {
			continue
		}
		if inner, ok := idx.complete(f.Type).(*dwarf.StructType); ok {
			if o, t, found := idx.member(inner, name, depth+1); found {
				return f.ByteOffset + o, t, true
			}
		}
	}
	return 0, nil, false
}

// bitMask is the mask of bit field name in the 32-bit word that starts
// st, read in the target's byte order. DWARF 4+ gives the field's data
// bit offset from the start of st, DWARF 2-3 its bit offset within a
// storage unit; both count from the first byte's least significant bit
// on little-endian targets and from its most significant on big-endian
// ones.
func bitMask(st dwarf.Type, name string, order binary.ByteOrder) (int64, bool) {
	s, ok := st.(*dwarf.StructType)
	if !ok {
		return 0, false
	}
	for _, f := range s.Field {
		if f.Name != name || f.BitSize <= 0 || f.BitSize > 32 {
			continue
		}
		pos := f.DataBitOffset // from the start of st, in memory bit order
		if pos == 0 && f.BitOffset != 0 {
			pos = f.ByteOffset*8 + f.BitOffset // DWARF 2: from the unit's MSB
			if order == binary.LittleEndian {
				pos = f.ByteOffset*8 + f.ByteSize*8 - f.BitOffset - f.BitSize
			}
		}
		if pos < 0 || pos+f.BitSize > 32 {
			return 0, false
		}
		shift := pos // the least significant bit, counting from the word's
		if order != binary.LittleEndian {
			shift = 32 - pos - f.BitSize
		}
		return int64(uint32(1<<uint(f.BitSize)-1) << uint(shift)), true
	}
	return 0, false
}

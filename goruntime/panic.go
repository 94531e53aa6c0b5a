package goruntime

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
)

// SymFirstModuledata is the runtime's first module: its types section
// holds the names panic values' types are printed by.
const SymFirstModuledata = "runtime.firstmoduledata"

// panicLayout is where the fields the panic value is read through sit:
// g._panic, _panic.arg (an interface: type, data), the type's kind and
// name offset, and the module's types base. ok is false when the DWARF
// lacks one of them: panics are then not read.
type panicLayout struct {
	ok                           bool
	gPanic, panicArg             int64
	typeKind, typeTFlag, typeStr int64
	moduleTypes                  int64
	// The chain: _panic.link, and the flags printpanics reads (-1
	// where the release has none: repanicked is Go 1.23's).
	link, recovered, repanicked, goexit int64
}

// panicLayoutOf is the panicLayout of the struct types found.
func panicLayoutOf(structs map[string]*dwarf.StructType) panicLayout {
	g, p, typ, md := structs["runtime.g"], structs["runtime._panic"], structs["internal/abi.Type"], structs["runtime.moduledata"]
	kind, tflag, str := "Kind_", "TFlag", "Str"
	if typ == nil {
		// Go 1.20: the type is runtime._type, its fields in lower case.
		typ, kind, tflag, str = structs["runtime._type"], "kind", "tflag", "str"
	}
	if g == nil || p == nil || typ == nil || md == nil {
		return panicLayout{}
	}
	l := panicLayout{gPanic: fieldOffset(g, "_panic"), panicArg: fieldOffset(p, "arg"),
		typeKind: fieldOffset(typ, kind), typeTFlag: fieldOffset(typ, tflag), typeStr: fieldOffset(typ, str),
		moduleTypes: fieldOffset(md, "types"),
		link:        fieldOffset(p, "link"), recovered: fieldOffset(p, "recovered"),
		repanicked: fieldOffset(p, "repanicked"), goexit: fieldOffset(p, "goexit")}
	l.ok = l.gPanic >= 0 && l.gPanic <= g.ByteSize-8 && l.panicArg >= 0 && l.typeKind >= 0 && l.typeTFlag >= 0 &&
		l.typeStr >= 0 && l.moduleTypes >= 0
	return l
}

// fieldOffset is the offset of st's field name, -1 if it has none.
func fieldOffset(st *dwarf.StructType, name string) int64 {
	for _, f := range st.Field {
		if f.Name == name {
			return f.ByteOffset
		}
	}
	return -1
}

// Type kinds and flags of internal/abi.
const (
	kindMask      = 1<<5 - 1
	kindString    = 24
	tflagExtraStr = 1 << 1 // the name has a '*' to strip
)

// Panic returns the value the goroutine g is panicking with (its
// newest panic), as the runtime prints it after "panic: ", and ok false
// when g is not panicking or the value cannot be read.
func (r *Reader) Panic(mem Memory, g *Goroutine) (msg string, ok bool) {
	chain := r.Panics(mem, g)
	if len(chain) == 0 {
		return "", false
	}
	return chain[len(chain)-1].Value, true
}

// PanicValue is one panic of a goroutine's chain.
type PanicValue struct {
	// Value is as the runtime prints it after "panic: ": a string
	// (runtime errors with their "runtime error: " prefix, an error's
	// or Stringer's text once the runtime has turned it into one),
	// a number, "TYPE(VALUE)" for a named string or number type, the
	// message of an error value of a type whose message the memory
	// holds (errors.New's, fmt.Errorf's), else "(TYPE) 0xADDR".
	Value string
	// Type is the value's dynamic type ("*errors.errorString").
	Type string
	// Recovered, Repanicked: the runtime's flags, printed as
	// " [recovered]" or " [recovered, repanicked]".
	Recovered, Repanicked bool
	// Goexit: a runtime.Goexit, which the runtime does not print.
	Goexit bool
}

// maxPanics bounds a goroutine's chain of panics.
const maxPanics = 16

// Panics returns g's chain of panics, the oldest first (as printpanics
// prints them), nil when g is not panicking. A panic whose value cannot
// be read ends the chain there.
func (r *Reader) Panics(mem Memory, g *Goroutine) []PanicValue {
	l := &r.panic
	if !l.ok {
		return nil
	}
	p, err := r.word(mem, g.Addr+uint64(l.gPanic))
	var chain []PanicValue
	for ; err == nil && p != 0 && len(chain) < maxPanics; p, err = r.panicLink(mem, p) {
		v, ok := r.panicValue(mem, p)
		if !ok {
			break
		}
		chain = append(chain, v)
	}
	slices.Reverse(chain)
	return chain
}

// panicLink is the _panic at p's link, 0 for none.
func (r *Reader) panicLink(mem Memory, p uint64) (uint64, error) {
	if r.panic.link < 0 {
		return 0, nil
	}
	return r.word(mem, p+uint64(r.panic.link))
}

// panicValue reads the _panic at p.
func (r *Reader) panicValue(mem Memory, p uint64) (PanicValue, bool) {
	l := &r.panic
	flag := func(off int64) bool {
		var b [1]byte
		return off >= 0 && mem.ReadMem(p+uint64(off), b[:]) == nil && b[0] != 0
	}
	v := PanicValue{Recovered: flag(l.recovered), Repanicked: flag(l.repanicked), Goexit: flag(l.goexit)}
	ptr := uint64(r.b.PtrSize)
	typ, err1 := r.word(mem, p+uint64(l.panicArg))
	data, err2 := r.word(mem, p+uint64(l.panicArg)+ptr)
	if err1 != nil || err2 != nil {
		return v, false
	}
	if typ == 0 {
		v.Value = "nil"
		return v, true
	}
	name, ok := r.typeName(mem, typ)
	if !ok {
		return v, false
	}
	var kind [1]byte
	if err := mem.ReadMem(typ+uint64(l.typeKind), kind[:]); err != nil {
		return v, false
	}
	v.Type = name
	v.Value, ok = r.formatValue(mem, name, kind[0]&kindMask, data)
	return v, ok
}

// errorMessages are error types whose message is a string field at the
// start of the struct they point to: errors.New's and fmt.Errorf's.
var errorMessages = map[string]bool{"*errors.errorString": true, "*fmt.wrapError": true, "*fmt.wrapErrors": true}

// formatValue prints a value of the named type and kind whose data
// word is data, as the runtime's printpanicval does.
func (r *Reader) formatValue(mem Memory, name string, kind uint8, data uint64) (string, bool) {
	switch {
	case kind == kindString:
		s, ok := r.str(mem, data)
		if !ok {
			return "", false
		}
		switch name {
		case "runtime.errorString":
			return "runtime error: " + s, true
		case "string", "runtime.plainError":
			return s, true
		}
		return fmt.Sprintf("%s(%q)", name, s), true
	case errorMessages[name]:
		// preprintpanics prints an error by its Error(): these types'
		// Error() is their first field.
		return r.str(mem, data)
	case kind >= kindInt && kind <= kindUintptr || kind == kindBool:
		n, ok := r.number(mem, kind, data)
		if !ok {
			return "", false
		}
		if builtinNumber[name] {
			return n, true
		}
		return name + "(" + n + ")", true
	}
	return fmt.Sprintf("(%s) %#x", name, data), true
}

// Kinds of internal/abi, and their sizes.
const (
	kindBool    = 1
	kindInt     = 2
	kindUintptr = 12
)

// builtinNumber are the types printpanicval prints bare.
var builtinNumber = map[string]bool{"bool": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true}

// number reads the boolean or integer of kind at data.
func (r *Reader) number(mem Memory, kind uint8, data uint64) (string, bool) {
	size := map[uint8]int{kindBool: 1, 3: 1, 4: 2, 5: 4, 6: 8, 8: 1, 9: 2, 10: 4, 11: 8}[kind]
	if size == 0 { // int, uint, uintptr
		size = r.b.PtrSize
	}
	var b [8]byte
	if mem.ReadMem(data, b[:size]) != nil {
		return "", false
	}
	var u uint64
	switch size {
	case 1:
		u = uint64(b[0])
	case 2:
		u = uint64(r.b.Order.Uint16(b[:]))
	case 4:
		u = uint64(r.b.Order.Uint32(b[:]))
	default:
		u = r.b.Order.Uint64(b[:])
	}
	signed := kind >= kindInt && kind <= 6
	switch {
	case kind == kindBool:
		return strconv.FormatBool(u != 0), true
	case signed:
		shift := 64 - 8*size
		return strconv.FormatInt(int64(u<<shift)>>shift, 10), true
	}
	return strconv.FormatUint(u, 10), true
}

// typeName reads the name of the type at typ, resolved against the first
// module's types (a program with plugins has more modules; their types
// are not named).
func (r *Reader) typeName(mem Memory, typ uint64) (string, bool) {
	l := &r.panic
	md, ok := r.b.Symbols[SymFirstModuledata]
	if !ok {
		return "", false
	}
	types, err := r.word(mem, md+r.b.Bias+uint64(l.moduleTypes))
	if err != nil {
		return "", false
	}
	var b [4]byte
	if err := mem.ReadMem(typ+uint64(l.typeStr), b[:]); err != nil {
		return "", false
	}
	off := r.b.Order.Uint32(b[:])
	var tflag [1]byte
	if err := mem.ReadMem(typ+uint64(l.typeTFlag), tflag[:]); err != nil {
		return "", false
	}
	// An abi.Name: a flags byte, the length as a uvarint, the bytes.
	var hdr [1 + binary.MaxVarintLen64]byte
	name := types + uint64(off)
	if err := mem.ReadMem(name, hdr[:1+2]); err != nil {
		return "", false
	}
	n, w := binary.Uvarint(hdr[1:3])
	if w <= 0 || n == 0 || n > maxString {
		return "", false
	}
	buf := make([]byte, n)
	if err := mem.ReadMem(name+1+uint64(w), buf); err != nil {
		return "", false
	}
	s := string(buf)
	if tflag[0]&tflagExtraStr != 0 && len(s) > 0 && s[0] == '*' {
		s = s[1:]
	}
	return s, true
}

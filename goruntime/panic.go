package goruntime

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
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
		moduleTypes: fieldOffset(md, "types")}
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

// Panic returns the value the goroutine g is panicking with, as the
// runtime prints it after "panic: ", and ok false when g is not
// panicking or the value cannot be read. Values of string kind are
// printed (runtime errors with their "runtime error: " prefix); others
// by their type.
func (r *Reader) Panic(mem Memory, g *Goroutine) (msg string, ok bool) {
	l := &r.panic
	if !l.ok {
		return "", false
	}
	ptr := uint64(r.b.PtrSize)
	p, err := r.word(mem, g.Addr+uint64(l.gPanic))
	if err != nil || p == 0 {
		return "", false
	}
	typ, err1 := r.word(mem, p+uint64(l.panicArg))
	data, err2 := r.word(mem, p+uint64(l.panicArg)+ptr)
	if err1 != nil || err2 != nil || typ == 0 {
		return "", false
	}
	name, ok := r.typeName(mem, typ)
	if !ok {
		return "", false
	}
	var kind [1]byte
	if err := mem.ReadMem(typ+uint64(l.typeKind), kind[:]); err != nil {
		return "", false
	}
	if kind[0]&kindMask != kindString {
		return fmt.Sprintf("(a %s)", name), true
	}
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

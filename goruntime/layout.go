package goruntime

import (
	"debug/dwarf"
	"errors"
	"fmt"
)

// layout is where the fields this package reads sit in runtime.g, as
// byte offsets from the start of a g.
type layout struct {
	size                               int64 // of runtime.g
	stackLo, stackHi                   int64
	m                                  int64
	schedSP, schedPC, schedLR, schedBP int64 // schedLR, schedBP: -1 where gobuf has none
	syscallSP, syscallPC, syscallBP    int64 // syscallBP: -1 where g has none
	status, goid, waitReason           int64
}

// errNoLayout says the DWARF lacks runtime.g or a field this package needs.
var errNoLayout = errors.New("no runtime.g layout in the DWARF")

// layoutStructs are the runtime's struct types the reader needs, found
// in one pass over the DWARF.
var layoutStructs = append([]string{"runtime.g", "runtime.gobuf", "runtime.stack", "runtime._panic", "internal/abi.Type", "runtime.moduledata"}, infoStructs...)

// layoutFromDWARF finds the layouts of runtime.g (with runtime.gobuf and
// runtime.stack) and, when the DWARF has them, of what a panic value is
// read through, and of what describes a goroutine beyond its stack.
func layoutFromDWARF(d *dwarf.Data) (layout, panicLayout, infoLayout, error) {
	structs, err := findStructs(d, layoutStructs...)
	if err != nil {
		return layout{}, panicLayout{}, infoLayout{}, err
	}
	return layoutOf(structs)
}

// layoutOf is layoutFromDWARF's reading of the struct types found, in
// the DWARF or the generated table.
func layoutOf(structs map[string]*dwarf.StructType) (layout, panicLayout, infoLayout, error) {
	l, err := gLayout(structs)
	if err != nil {
		return layout{}, panicLayout{}, infoLayout{}, err
	}
	return l, panicLayoutOf(structs), infoLayoutOf(structs), nil
}

// gLayout is runtime.g's layout from its struct types.
func gLayout(structs map[string]*dwarf.StructType) (layout, error) {
	g, gobuf, stack := structs["runtime.g"], structs["runtime.gobuf"], structs["runtime.stack"]
	if g == nil || gobuf == nil || stack == nil {
		return layout{}, errNoLayout
	}
	var missing []string
	off := func(st *dwarf.StructType, name string, required bool) int64 {
		o := fieldOffset(st, name)
		if o < 0 && required {
			missing = append(missing, st.StructName+"."+name)
		}
		return o
	}
	sched, stk := off(g, "sched", true), off(g, "stack", true)
	at := func(base, field int64) int64 {
		if base < 0 || field < 0 {
			return -1
		}
		return base + field
	}
	l := layout{
		size:       g.ByteSize,
		stackLo:    at(stk, off(stack, "lo", true)),
		stackHi:    at(stk, off(stack, "hi", true)),
		m:          off(g, "m", true),
		schedSP:    at(sched, off(gobuf, "sp", true)),
		schedPC:    at(sched, off(gobuf, "pc", true)),
		schedLR:    at(sched, off(gobuf, "lr", false)),
		schedBP:    at(sched, off(gobuf, "bp", false)),
		syscallSP:  off(g, "syscallsp", true),
		syscallPC:  off(g, "syscallpc", true),
		syscallBP:  off(g, "syscallbp", false),
		status:     off(g, "atomicstatus", true),
		goid:       off(g, "goid", true),
		waitReason: off(g, "waitreason", true),
	}
	if len(missing) > 0 {
		return layout{}, fmt.Errorf("%w: no field %v", errNoLayout, missing)
	}
	if l.size <= 0 || l.size > maxGSize {
		return layout{}, fmt.Errorf("%w: runtime.g of %d bytes", errNoLayout, l.size)
	}
	for _, o := range []int64{l.stackLo, l.stackHi, l.m, l.schedSP, l.schedPC, l.schedLR, l.schedBP,
		l.syscallSP, l.syscallPC, l.syscallBP, l.status, l.goid, l.waitReason} {
		if o > l.size-8 {
			return layout{}, fmt.Errorf("%w: a field at %d in runtime.g of %d bytes", errNoLayout, o, l.size)
		}
	}
	return l, nil
}

// maxGSize bounds runtime.g's size as the DWARF gives it (456 bytes in
// Go 1.26): a g is read whole.
const maxGSize = 4096

// findStructs returns the struct types of the given names, reading d's
// type entries once. Struct members are skipped, not read one by one.
// The walk ends with the unit the first of them is found in: Go's
// linker writes every type into one unit (the runtime's, after its
// functions: cmd/link's movetomodule), so the units after it, most of
// the DWARF, hold none, and a name not found there (the label types of
// a program that sets none) is in no other.
func findStructs(d *dwarf.Data, names ...string) (map[string]*dwarf.StructType, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]*dwarf.StructType{}
	r := d.Reader()
	for len(out) < len(names) {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("goruntime: DWARF: %w", err)
		}
		if e == nil {
			break
		}
		if e.Tag == dwarf.TagCompileUnit {
			if len(out) > 0 {
				break // past the unit of the types
			}
			continue // its children are the types
		}
		if e.Tag == dwarf.TagStructType {
			if n, _ := e.Val(dwarf.AttrName).(string); want[n] && out[n] == nil {
				t, err := d.Type(e.Offset)
				if err != nil {
					return nil, fmt.Errorf("goruntime: DWARF type %s: %w", n, err)
				}
				if st, ok := t.(*dwarf.StructType); ok {
					out[n] = st
				}
			}
		}
		if e.Children {
			r.SkipChildren()
		}
	}
	return out, nil
}

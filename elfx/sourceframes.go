package elfx

import (
	"fmt"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// SourceFrame is one function at a code address: the innermost inlined
// function first, the out-of-line function that contains them last.
type SourceFrame struct {
	Function string // demangled
	File     string // full path
	Line     int
	Column   int
	Inlined  bool // true for every frame but the last
}

// maxInlineDepth bounds inline chains in hostile DWARF; real ones are a
// few dozen deep at most.
const maxInlineDepth = 256

// SourceFrames returns the source location of addr (link-time) with its
// inline chain, as `addr2line -f -i -C -e FILE ADDR` prints it: the
// innermost inlined function with the file:line at addr, then each
// function it was inlined into with the call site's file:line, ending with
// the out-of-line function. Where the DWARF has a line table but no
// function (assembly), the function name comes from the symbol table. Go
// code takes all of it from .gopclntab, with or without DWARF (inGoCode).
// An object without debug
// information gives an empty slice and a nil error.
func (o *Object) SourceFrames(addr uint64) ([]SourceFrame, error) {
	m := o.state().memo.Load()
	if m != nil {
		if f, ok := memoLoad(m, m.l.frames, addr); ok {
			return f, nil
		}
	}
	f, err := o.sourceFrames(addr)
	if m != nil && err == nil {
		memoStore(m, m.l.frames, addr, f)
	}
	return f, err
}

func (o *Object) sourceFrames(addr uint64) (frames []SourceFrame, err error) {
	if o.inGoCode(addr) {
		return o.goTable().sourceFrames(addr), nil
	}
	x, err := o.dwarfIndex()
	if err != nil {
		return nil, err
	}
	if x != nil {
		defer func() {
			if p := recover(); p != nil {
				mapfault.Reraise(p)
				frames, err = nil, fmt.Errorf("elfx: %s: malformed DWARF near %#x (%v)", o.name, addr, p)
			}
		}()
		frames, err = x.sourceFrames(addr, o)
		if len(frames) > 0 || err != nil {
			return frames, err
		}
	}
	if g := o.goTable(); g != nil {
		return g.sourceFrames(addr), nil
	}
	return []SourceFrame{}, nil
}

func (x *dwarfIndex) sourceFrames(pc uint64, o *Object) ([]SourceFrame, error) {
	if x.lazy != nil && !x.unlisted && !x.byPC.covers(pc) {
		if x.lazy.everyUnitListed() {
			return nil, nil
		}
		return x.lazy.unlistedIndex().sourceFrames(pc, o)
	}
	var out []SourceFrame
	var firstErr error
	var lineOnly *lineRow
	var lineCU *cuIndex
	x.byPC.each(pc, func(i int32) bool {
		cu := x.unit(i)
		if err := cu.load(x); err != nil && firstErr == nil {
			firstErr = err
		}
		scopes, sub, ok := cu.functionAt(x, pc)
		row, haveRow := cu.lookupLine(pc)
		if !ok {
			if haveRow && lineOnly == nil {
				lineOnly, lineCU = &row, cu
			}
			return true
		}
		// Descend into the inlined call containing pc at each level.
		chain := []int32{sub}
		for len(chain) < maxInlineDepth {
			cur := &scopes[chain[len(chain)-1]]
			next := int32(-1)
			for _, c := range cur.children {
				if scopes[c].contains(pc) {
					next = c
					break
				}
			}
			if next < 0 {
				break
			}
			chain = append(chain, next)
		}
		file, line, col := "", 0, 0
		if haveRow {
			file, line, col = cu.fileName(row.file), int(row.line), int(row.col)
		}
		files := cu.files()
		for k := len(chain) - 1; k >= 0; k-- {
			s := &scopes[chain[k]]
			name := x.funcName(cu, s.die)
			if name == "" && k == 0 {
				// An out-of-line copy without a name of its own (GCC's
				// foo.part.0 and foo.cold): the symbol names it.
				name = o.nearestSymbolName(pc)
			}
			out = append(out, SourceFrame{
				Function: name,
				File:     file,
				Line:     line,
				Column:   col,
				Inlined:  k > 0,
			})
			// The caller's location is where this scope was inlined.
			file, line, col = "", int(s.callLine), int(s.callCol)
			if s.callFile >= 0 && s.callFile < int64(len(files)) {
				file = cu.fileName(files[s.callFile])
			}
		}
		return false
	})
	// No function in the DWARF (assembly, split DWARF skeletons, padding
	// between functions): like addr2line, take the function from the
	// symbol table and the line from the line table.
	if len(out) == 0 && lineOnly != nil {
		out = append(out, SourceFrame{
			Function: o.nearestSymbolName(pc),
			File:     lineCU.fileName(lineOnly.file),
			Line:     int(lineOnly.line),
			Column:   int(lineOnly.col),
		})
	}
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

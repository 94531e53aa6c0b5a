package gopclntab

// Frame is one function at a code address: an inlined call or the
// function the code belongs to.
type Frame struct {
	Function string
	File     string
	Line     int
	ID       FuncID
	// Inlined is true for every frame but the last, the function whose
	// code holds the address.
	Inlined bool
}

// inlinedCallSize is the size of runtime.inlinedCall (Go 1.20 and
// later): funcID, 3 bytes of padding, nameOff, parentPc, startLine.
const inlinedCallSize = 16

// maxInlineDepth bounds an inlining chain a hostile tree could make
// endless (the compiler's inlining budget keeps real ones a few deep).
const maxInlineDepth = 256

// Frames returns the functions at pc as the runtime's traceback prints
// them: the innermost inlined call first, with the file and line at pc,
// then each function it was inlined into with the line of the call,
// ending with f itself. For a return address, pass the address of the
// call (the return address minus one), as the runtime does. Without the
// table's gofunc bytes (SetGoFunc) or an inlining tree for f, it is f
// alone.
func (f *Func) Frames(pc uint64) ([]Frame, error) {
	tree := f.inlineTree()
	var out []Frame
	prev := int32(-1)
	for range maxInlineDepth {
		// Without a line (code the table does not cover) the frame
		// has its function's name alone.
		file, line, _ := f.FileLine(pc)
		ix, ok := f.PCData(pcdataInlTreeIndex, pc)
		if !ok || ix < 0 || tree == nil || uint64(ix) >= uint64(len(tree))/inlinedCallSize {
			return append(out, Frame{Function: f.Name, File: file, Line: line, ID: f.ID}), nil
		}
		// The compiler adds a call to the tree after its parent: a
		// chain's indexes fall, and a cycle is malformed.
		if prev >= 0 && ix >= prev {
			return out, &FormatError{f.off, "inlining tree's parent after its call"}
		}
		prev = ix
		call := tree[ix*inlinedCallSize:]
		name, ok := f.t.funcName(int32(f.t.order.Uint32(call[4:])))
		if !ok {
			return out, &FormatError{f.off, "inlined function name outside the name table"}
		}
		out = append(out, Frame{Function: name, File: file, Line: line, ID: FuncID(call[0]), Inlined: true})
		parent := int32(f.t.order.Uint32(call[8:]))
		if parent < 0 || f.Entry+uint64(parent) >= f.End {
			return out, &FormatError{f.off, "inlined call's parent pc outside its function"}
		}
		pc = f.Entry + uint64(parent)
	}
	return out, &FormatError{f.off, "inlining chain deeper than any compiler makes"}
}

// inlineTree is the bytes of f's inlining tree, nil when it has none or
// the table has no gofunc bytes. The tree's length is not recorded: it
// runs to the end of the gofunc bytes, and each index is checked.
func (f *Func) inlineTree() []byte {
	off, ok := f.funcdata(funcdataInlTree)
	if !ok || f.t.gofunc == nil || uint64(off) >= uint64(len(f.t.gofunc)) {
		return nil
	}
	return f.t.gofunc[off:]
}

package pyruntime

import (
	"fmt"

	"github.com/coreunwind/coreunwind/pyruntime/linetable"
	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
)

// Type objects the reader checks pointers against.
const (
	SymCodeType  = "PyCode_Type"
	SymBytesType = "PyBytes_Type"
	SymTupleType = "PyTuple_Type"
)

// code is what a frame prints of its code object.
type code struct {
	name, qualname, file string
	firstLine            int
	linetable            []byte
	instrStart           uint64 // address of the first code unit (3.11+)
}

// codeCache keeps the code objects one read decoded, by address, and
// why those that could not be were not: a recursion runs one code
// object in thousands of frames.
type codeCache map[uint64]codeResult

type codeResult struct {
	c   *code
	err error
}

// maxCodes bounds the code objects one read keeps.
const maxCodes = 1 << 14

// code reads the code object at addr.
func (r *Reader) code(mem Memory, cache codeCache, addr uint64) (*code, error) {
	if res, ok := cache[addr]; ok {
		return res.c, res.err
	}
	c, err := r.readCode(mem, addr)
	if len(cache) < maxCodes {
		cache[addr] = codeResult{c, err}
	}
	return c, err
}

func (r *Reader) readCode(mem Memory, addr uint64) (*code, error) {
	l := r.layout
	if err := r.checkType(mem, addr, SymCodeType); err != nil {
		return nil, err
	}
	first, err := r.int32At(mem, addr+uint64(l.Code.FirstLineno))
	if err != nil {
		return nil, fmt.Errorf("code at %#x: %w", addr, err)
	}
	c := &code{firstLine: int(first), instrStart: addr + uint64(l.Code.CodeAdaptive)}
	for _, s := range []struct {
		off pylayout.Offset
		out *string
	}{{l.Code.Name, &c.name}, {l.Code.Qualname, &c.qualname}, {l.Code.Filename, &c.file}} {
		if !s.off.Present() {
			continue // co_qualname before 3.11
		}
		p, err := r.field(mem, addr, s.off)
		if err != nil {
			return nil, fmt.Errorf("code at %#x: %w", addr, err)
		}
		if *s.out, err = r.str(mem, p); err != nil {
			return nil, fmt.Errorf("code at %#x: %w", addr, err)
		}
	}
	if c.qualname == "" {
		c.qualname = c.name
	}
	// A code object without its line table still names its frame.
	table := l.Code.Linetable
	if r.format == linetable.Lnotab {
		table = l.Code.Lnotab
	}
	if p, err := r.field(mem, addr, table); err == nil {
		c.linetable, _ = r.bytes(mem, p, maxLinetable)
	}
	return c, nil
}

// bytes reads the bytes object at addr, nil past max bytes.
func (r *Reader) bytes(mem Memory, addr uint64, max uint64) ([]byte, error) {
	if err := r.checkType(mem, addr, SymBytesType); err != nil {
		return nil, err
	}
	n, err := r.word(mem, addr+uint64(r.layout.Bytes.Size))
	if err != nil {
		return nil, fmt.Errorf("bytes at %#x: %w", addr, err)
	}
	if n > max {
		return nil, fmt.Errorf("bytes at %#x: %d bytes", addr, n)
	}
	if err := r.readable(mem, addr+uint64(r.layout.Bytes.Sval), n); err != nil {
		return nil, fmt.Errorf("bytes at %#x: %w", addr, err)
	}
	buf := make([]byte, n)
	if err := mem.ReadMem(addr+uint64(r.layout.Bytes.Sval), buf); err != nil {
		return nil, fmt.Errorf("bytes at %#x: %w", addr, err)
	}
	return buf, nil
}

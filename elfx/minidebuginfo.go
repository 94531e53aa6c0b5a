package elfx

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"sync"

	"github.com/therootcompany/xz"
)

// MiniDebugInfo: distributions (Fedora, RHEL, SUSE) strip binaries but
// embed an xz-compressed ELF holding a .symtab of their functions in
// .gnu_debugdata, so that backtraces name static functions without a
// debug package. gdb and elfutils read it; so does elfx, as one more
// symbol table after the binary's and the debug file's own.

// maxMiniDebugInfo bounds the inflated image: real ones are a few hundred
// KiB (the symbol table of a large program).
const maxMiniDebugInfo = 64 << 20

type miniDebug struct {
	once sync.Once
	obj  *Object // nil when there is none or it is unreadable
}

// miniDebugObject returns the object inside .gnu_debugdata, nil if none.
func (o *Object) miniDebugObject() *Object {
	o.mini.once.Do(func() {
		s := o.section(".gnu_debugdata")
		if s == nil {
			return
		}
		raw, err := o.sectionData(s)
		if err != nil {
			return
		}
		img, err := inflateXZ(raw, maxMiniDebugInfo)
		if err != nil {
			return
		}
		obj, err := NewObject(bytes.NewReader(img), int64(len(img)), o.name+" .gnu_debugdata")
		if err == nil {
			o.mini.obj = obj
		}
	})
	return o.mini.obj
}

// inflateXZ decompresses an xz stream of at most limit bytes.
func inflateXZ(b []byte, limit int64) ([]byte, error) {
	r, err := xz.NewReader(bytes.NewReader(b), 0)
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("more than %d bytes", limit)
	}
	return out, nil
}

// miniSymbols reads the code symbols of .gnu_debugdata's .symtab. The
// embedded object has the binary's section layout (its sections are
// NOBITS copies), so symbol section indexes mean the same.
func (o *Object) miniSymbols(raw []symEntry) []symEntry {
	if m := o.miniDebugObject(); m != nil {
		return m.readCodeSymbols(raw, elf.SHT_SYMTAB)
	}
	return raw
}

package elfx

import (
	"debug/gosym"
	"fmt"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// goTable is a Go binary's .gopclntab: function and line for every PC,
// present even when the DWARF was stripped (-ldflags=-w).
type goTable struct {
	t *gosym.Table
}

// goTable returns the object's Go line table, or nil if it has none.
func (o *Object) goTable() *goTable {
	d := o.state()
	d.goOnce.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				mapfault.Reraise(p)
				d.gotab = nil // hostile .gopclntab: behave as if absent
			}
		}()
		pcln := o.section(".gopclntab")
		text := o.ef.Section(".text")
		if pcln == nil || text == nil {
			return
		}
		data, err := o.sectionData(pcln)
		if err != nil {
			return
		}
		t, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
		if err != nil {
			return
		}
		d.gotab = &goTable{t: t}
	})
	return d.gotab
}

func (g *goTable) sourceFrames(pc uint64) (frames []SourceFrame) {
	defer func() {
		if p := recover(); p != nil {
			mapfault.Reraise(p)
			frames = []SourceFrame{}
		}
	}()
	file, line, fn := g.t.PCToLine(pc)
	if fn == nil {
		return []SourceFrame{}
	}
	return []SourceFrame{{Function: fn.Name, File: file, Line: line}}
}

// errorf is fmt.Errorf with the package prefix.
func errorf(format string, args ...any) error {
	return fmt.Errorf("elfx: "+format, args...)
}

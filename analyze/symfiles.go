package analyze

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/coreunwind/coreunwind/elfx/breakpadsym"
	"github.com/coreunwind/coreunwind/minidump"
	"github.com/coreunwind/coreunwind/report"
)

// Breakpad symbol files (--symbols DIR): names and lines for the frames
// of a module whose binary is not at hand, from the .sym file a symbol
// store keeps for its build (NAME/ID/NAME.sym, ID Breakpad's debug
// identifier of the module's build ID), as minidump_stackwalk reads them.

// symbolFiles is a target's symbol store and the files opened from it.
type symbolFiles struct {
	store breakpadsym.Store
	mu    sync.Mutex
	files map[*module]*breakpadsym.File // nil entries: looked for, none usable
	warn  []string
}

// symbolFile returns the symbol file of m, nil when the store has none
// (or m records no build ID to find it by).
func (t *target) symbolFile(m *module) *breakpadsym.File {
	sf := &t.symFiles
	if len(sf.store) == 0 || m == nil || m.core.BuildID == "" {
		return nil
	}
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if f, ok := sf.files[m]; ok {
		return f
	}
	if sf.files == nil {
		sf.files = map[*module]*breakpadsym.File{}
	}
	sf.files[m] = nil
	id, err := hex.DecodeString(m.core.BuildID)
	if err != nil {
		return nil
	}
	path := sf.store.Path(filepath.Base(m.core.Path), minidump.DebugIDFromBuildID(id))
	if path == "" {
		return nil
	}
	f, err := breakpadsym.Open(path)
	if err != nil {
		sf.warn = append(sf.warn, fmt.Sprintf("module %s: symbol file: %v", m.core.Path, err))
		return nil
	}
	sf.files[m] = f
	return f
}

// symbolFileWarnings says which symbol files could not be read.
func (t *target) symbolFileWarnings() []string {
	t.symFiles.mu.Lock()
	defer t.symFiles.mu.Unlock()
	return t.symFiles.warn
}

// symbolFileFrame names outer (a frame in m at lookup address addr,
// reported pc) from m's symbol file; false when it has nothing there.
func (t *target) symbolFileFrame(m *module, outer report.Frame, addr, pc uint64) (report.Frame, bool) {
	f := t.symbolFile(m)
	if f == nil || addr < m.core.Base {
		return outer, false
	}
	loc, ok := f.Lookup(addr - m.core.Base)
	if !ok {
		return outer, false
	}
	outer.Function = report.Ptr(loc.Function)
	outer.FunctionOffset = report.Ptr(report.Hex(pc - m.core.Base - loc.FuncAddr))
	if loc.File != "" {
		outer.File = report.Ptr(loc.File)
	}
	if loc.Line > 0 {
		outer.Line = report.Ptr(loc.Line)
	}
	return outer, true
}

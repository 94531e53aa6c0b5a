package analyze

import (
	"encoding/binary"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/unwind"
)

// module is one mapped object with what the unwinder needs of it.
type module struct {
	core  *corefile.Module
	start uint64
	end   uint64

	// open opens the object on first use (obj): a report opens the
	// modules its frames are in, not every library the process mapped.
	// nil for an object made from memory (a JIT's), given as opened.
	open    func() (*elfx.Object, error)
	once    sync.Once
	opened  *elfx.Object // set by obj; nil when the file was not found
	bias    uint64       // runtime address = link-time address + bias; set with opened
	openErr error
	tried   atomic.Bool // open ran, and openErr is set

	goFuncs goFuncs // the Go runtime functions walks treat specially
}

// obj returns the module's object, opening it on first use; nil when
// the file was not found or could not be opened (openErr says why), or
// for a nil module (an address in none). bias is valid once obj was
// called.
func (m *module) obj() *elfx.Object {
	if m == nil {
		return nil
	}
	if m.open != nil {
		m.once.Do(func() {
			obj, err := m.open()
			m.openErr = err
			if obj != nil {
				m.opened, m.bias = obj, loadBias(obj, m.core.Base)
			}
			m.tried.Store(true)
		})
	}
	return m.opened
}

// target is a core as an unwind.AddrSpace: memory from corefile, unwind
// info and names from the modules' elfx objects.
type target struct {
	core    *corefile.Core
	modules []*module // sorted by start
	// tables finds entries of the arch's own unwind tables (IA-64,
	// PA-RISC); nil for arches that unwind by DWARF CFI only.
	tables unwind.TableArch
	// jitState describes code generated at run time (analyze/jit.go).
	jitState jitState
	// symFiles are Breakpad symbol files for modules without their
	// binary (analyze/symfiles.go).
	symFiles symbolFiles
	exeSyms  exeSymbolTable // crash.go
}

var _ unwind.AddrSpace = (*target)(nil)
var _ unwind.CodeChecker = (*target)(nil)

func (t *target) ByteOrder() binary.ByteOrder { return t.core.ByteOrder() }
func (t *target) PtrSize() int                { return t.core.PtrSize() }

func (t *target) ReadMem(addr uint64, p []byte) error { return t.core.ReadMem(addr, p) }

// module returns the module whose mappings cover addr.
func (t *target) module(addr uint64) *module {
	i := sort.Search(len(t.modules), func(i int) bool { return t.modules[i].start > addr }) - 1
	if i < 0 || addr >= t.modules[i].end {
		return t.jitModule(addr)
	}
	return t.modules[i]
}

func (t *target) FindProcInfo(ip uint64) (*unwind.ProcInfo, error) {
	m := t.module(ip)
	obj := m.obj()
	if obj == nil {
		if pi := t.symbolFileProcInfo(m, ip); pi != nil {
			return pi, nil
		}
		return t.dynProcInfo(ip)
	}
	_, tablesLast := t.tables.(unwind.TablesAfterCFI)
	if t.tables != nil && !tablesLast {
		if pi := t.tableEntry(m, ip); pi != nil {
			return pi, nil
		}
	}
	fde, err := obj.FindFDE(ip - m.bias)
	if err != nil || fde == nil {
		if t.tables != nil && tablesLast {
			if pi := t.tableEntry(m, ip); pi != nil {
				return pi, nil
			}
		}
		return t.dynProcInfo(ip)
	}
	return &unwind.ProcInfo{
		StartIP: fde.Begin + m.bias,
		EndIP:   fde.End + m.bias,
		LSDA:    fde.LSDA,
		Format:  unwind.FormatCFI,
		Module:  m.core.Path,
		Bias:    m.bias,
		Info:    fde,
	}, nil
}

// tableEntry asks the arch's own unwind table of module m for ip.
func (t *target) tableEntry(m *module, ip uint64) *unwind.ProcInfo {
	pi, err := t.tables.FindTableEntry(m.obj().ELF(), ip-m.bias)
	if err != nil || pi == nil {
		return nil
	}
	pi.StartIP += m.bias
	pi.EndIP += m.bias
	pi.Bias = m.bias
	if pi.Module == "" {
		pi.Module = m.core.Path
	}
	return pi
}

func (t *target) ProcName(ip uint64) (string, uint64, error) {
	m := t.module(ip)
	obj := m.obj()
	if obj == nil {
		if name, start, ok := t.jitName(ip); ok {
			return name, ip - start, nil
		}
		return "", 0, unwind.ErrNoInfo
	}
	s, ok := obj.Symbol(ip - m.bias)
	if !ok {
		return "", 0, unwind.ErrNoInfo
	}
	return s.Name, ip - m.bias - s.Addr, nil
}

func (t *target) DynInfoListAddr() (uint64, error) { return t.dynListAddr() }

// IsCode reports whether addr lies in a mapping the process could execute.
func (t *target) IsCode(addr uint64) bool { return t.core.IsCode(addr) }

// newTarget sets up the core's modules, whose objects objs opens: all
// of them now, or with lazy each on first use (moduleWarnings then says
// what failed to open).
func newTarget(c *corefile.Core, objs *elfx.Cache, debugDirs []string, lazy bool) (*target, []string) {
	t := &target{core: c}
	for _, cm := range c.Modules {
		if !hasCode(c, cm) {
			// An ELF file mapped as data (a debug file or the executable
			// read by a backtrace library) holds no frames.
			continue
		}
		m := &module{core: cm, start: cm.Start, end: cm.End}
		m.open = func() (*elfx.Object, error) { return openModule(c, cm, objs, debugDirs) }
		t.modules = append(t.modules, m)
	}
	sort.Slice(t.modules, func(i, j int) bool { return t.modules[i].start < t.modules[j].start })
	if lazy {
		return t, nil
	}
	for _, m := range t.modules {
		m.obj()
	}
	return t, t.moduleWarnings()
}

// moduleWarnings says, in address order, which modules opened so far
// failed to open.
func (t *target) moduleWarnings() []string {
	var warnings []string
	for _, m := range t.modules {
		if m.tried.Load() && m.openErr != nil {
			warnings = append(warnings, fmt.Sprintf("module %s: %v", m.core.Path, m.openErr))
		}
	}
	return warnings
}

// openModule opens a module's object: the file corefile accepted, or for
// the vDSO the image in the core's memory.
func openModule(c *corefile.Core, cm *corefile.Module, objs *elfx.Cache, debugDirs []string) (*elfx.Object, error) {
	if cm.File != "" {
		if cm.FileID != (corefile.FileID{}) {
			return objs.OpenID(cm.File, elfx.FileID(cm.FileID), debugDirs)
		}
		return objs.Open(cm.File, debugDirs)
	}
	if cm.Path != "[vdso]" || cm.End <= cm.Start || cm.End-cm.Start > 1<<20 {
		return nil, nil
	}
	buf := vdsoBuffers.Get().(*[]byte)
	defer vdsoBuffers.Put(buf)
	img := append((*buf)[:0], make([]byte, cm.End-cm.Start)...)
	*buf = img
	if err := c.ReadMem(cm.Start, img); err != nil {
		return nil, fmt.Errorf("vDSO image: %w", err)
	}
	return objs.ImageObject(img, "[vdso]")
}

// vdsoBuffers hold the vDSO images read from cores: ImageObject copies
// the one it keeps, and a batch reads the same image from every core.
var vdsoBuffers = sync.Pool{New: func() any { return new([]byte) }}

// loadBias is what the loader added to the object's link-time addresses:
// the ELF header (file offset 0) was mapped at base, and the first
// PT_LOAD maps file offset p_offset at p_vaddr.
func loadBias(obj *elfx.Object, base uint64) uint64 {
	for _, p := range obj.LoadSegments() {
		return base - (p.Vaddr - p.Off)
	}
	return base
}

// hasCode reports whether the module may hold code: some mapping is
// executable, or nothing says otherwise (gdb's gcore leaves text out of
// the core, and the file may be missing). Only an ELF file whose every
// mapping is known to be data is left out.
func hasCode(c *corefile.Core, cm *corefile.Module) bool {
	if len(cm.Mappings) == 0 {
		code, known := c.CodeAt(cm.Start)
		return code || !known
	}
	for _, mp := range cm.Mappings {
		if code, known := c.CodeAt(mp.Start); code || !known {
			return true
		}
	}
	return false
}

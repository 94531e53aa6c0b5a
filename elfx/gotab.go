package elfx

import (
	"debug/buildinfo"
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/gopclntab"
	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// goTable is a Go binary's .gopclntab: function, line and inlined calls
// for every PC, and how far the stack pointer moved, present even when
// the symbols and DWARF were stripped (-ldflags=-s -w).
type goTable struct {
	t *gopclntab.Table
	// md is the module's moduledata, found by scanning; mdOK is false
	// when no data section holds it (inlined calls are then not named).
	md   gopclntab.ModuleData
	mdOK bool
	// wrapperID marks the release's wrappers (0: unknown).
	wrapperID gopclntab.FuncID
}

// goTable returns the object's Go function table, or nil if it has none.
func (o *Object) goTable() *goTable {
	d := o.state()
	d.goOnce.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				mapfault.Reraise(p)
				d.gotab = nil // hostile .gopclntab: behave as if absent
			}
		}()
		d.gotab = o.loadGoTable()
	})
	return d.gotab
}

func (o *Object) loadGoTable() *goTable {
	pcln := o.section(".gopclntab")
	text := o.ef.Section(".text")
	if pcln == nil || text == nil {
		return nil
	}
	data, err := o.sectionData(pcln)
	if err != nil {
		return nil
	}
	t, err := gopclntab.Parse(data, text.Addr)
	if err != nil {
		return nil
	}
	g := &goTable{t: t}
	if id, ok := t.WrapperID(); ok {
		g.wrapperID = id
	}
	// The moduledata: in .go.module (Go 1.26), else in the data.
	var segs []gopclntab.Segment
	for _, name := range []string{".go.module", ".noptrdata", ".data"} {
		if s := o.section(name); s != nil {
			if b, err := o.sectionData(s); err == nil {
				segs = append(segs, gopclntab.Segment{Addr: s.Addr, Data: b})
			}
		}
	}
	if md, err := t.FindModuleData(pcln.Addr, segs); err == nil {
		g.md, g.mdOK = md, true
		// Function entries are offsets from moduledata.text, the
		// .text section's start only when Go links alone: an external
		// link (cgo) puts the C start-up code first. A PIE's
		// moduledata holds no address until relocated: the section's
		// start stands then.
		if md.Text != text.Addr && md.Text > text.Addr && md.Text-text.Addr < text.Size {
			if rebased, err := gopclntab.Parse(data, md.Text); err == nil {
				t, g.t = rebased, rebased
			}
		}
		if b := o.bytesAt(md.GoFunc); b != nil {
			t.SetGoFunc(b)
		}
	}
	return g
}

// bytesAt returns the contents of the section holding link-time address
// addr, from addr to the section's end; nil when no section with
// contents holds it.
func (o *Object) bytesAt(addr uint64) []byte {
	for _, s := range o.ef.Sections {
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_ALLOC == 0 || addr < s.Addr || addr-s.Addr >= s.Size {
			continue
		}
		b, err := o.sectionData(s)
		if err != nil || addr-s.Addr >= uint64(len(b)) {
			return nil
		}
		return b[addr-s.Addr:]
	}
	return nil
}

// GoFunc is a Go function as the executable's .gopclntab describes it.
type GoFunc struct {
	Name       string
	Entry, End uint64 // link-time
	// TopFrame: the runtime starts stacks here (runtime.goexit,
	// rt0_go, mstart): nothing called it.
	TopFrame bool
	// SPWrite: the function switches stacks (systemstack, mcall,
	// morestack, gogo): its SP delta says nothing of its caller.
	SPWrite bool
	// Wrapper: code the compiler generated around a call (a method
	// or ABI wrapper, a method value's -fm): the runtime's traceback
	// leaves it out (runtime.showfuncinfo) unless GOTRACEBACK=system.
	Wrapper bool
}

// GoFunc returns the Go function covering addr (link-time) from the
// object's .gopclntab, ok false when the object has none or no function
// covers addr.
func (o *Object) GoFunc(addr uint64) (f GoFunc, ok bool) {
	g := o.goTable()
	if g == nil {
		return GoFunc{}, false
	}
	defer func() {
		if p := recover(); p != nil {
			mapfault.Reraise(p)
			f, ok = GoFunc{}, false
		}
	}()
	fn, ok := g.t.FuncAt(addr)
	if !ok {
		return GoFunc{}, false
	}
	return g.goFunc(&fn), true
}

func (g *goTable) goFunc(fn *gopclntab.Func) GoFunc {
	return GoFunc{Name: fn.Name, Entry: fn.Entry, End: fn.End,
		TopFrame: fn.Flag&gopclntab.FlagTopFrame != 0, SPWrite: fn.Flag&gopclntab.FlagSPWrite != 0,
		Wrapper: g.wrapperID != 0 && fn.ID == g.wrapperID}
}

// GoModuleData returns what the executable's Go moduledata (its
// runtime.firstmoduledata, found without symbols) says, ok false for an
// object without one.
func (o *Object) GoModuleData() (gopclntab.ModuleData, bool) {
	g := o.goTable()
	if g == nil || !g.mdOK {
		return gopclntab.ModuleData{}, false
	}
	return g.md, true
}

// goSymbol is the Go function covering addr as a symbol: what names the
// code of an executable whose symbol table was stripped.
func (o *Object) goSymbol(addr uint64) (Symbol, bool) {
	f, ok := o.GoFunc(addr)
	if !ok {
		return Symbol{}, false
	}
	return Symbol{Name: f.Name, Raw: f.Name, Addr: f.Entry, Size: f.End - f.Entry}, true
}

// goSymbolByName is the Go function named name as a symbol.
func (o *Object) goSymbolByName(name string) (s Symbol, ok bool) {
	g := o.goTable()
	if g == nil {
		return Symbol{}, false
	}
	defer func() {
		if p := recover(); p != nil {
			mapfault.Reraise(p)
			s, ok = Symbol{}, false
		}
	}()
	fn, ok := g.t.FuncByName(name)
	if !ok {
		return Symbol{}, false
	}
	return Symbol{Name: fn.Name, Raw: fn.Name, Addr: fn.Entry, Size: fn.End - fn.Entry}, true
}

// sourceFrames are the functions at pc, inlined calls first, as the Go
// runtime's traceback prints them.
func (g *goTable) sourceFrames(pc uint64) (frames []SourceFrame) {
	defer func() {
		if p := recover(); p != nil {
			mapfault.Reraise(p)
			frames = []SourceFrame{}
		}
	}()
	fn, ok := g.t.FuncAt(pc)
	if !ok {
		return []SourceFrame{}
	}
	fs, _ := fn.Frames(pc)
	if len(fs) == 0 || fs[len(fs)-1].Inlined {
		// A malformed tree: the function itself, at pc.
		file, line, _ := fn.FileLine(pc)
		fs = append(fs, gopclntab.Frame{Function: fn.Name, File: file, Line: line})
	}
	frames = make([]SourceFrame, len(fs))
	for i, f := range fs {
		frames[i] = SourceFrame{Function: f.Function, File: f.File, Line: f.Line, Inlined: f.Inlined}
	}
	return frames
}

// goDebugFrame is the .debug_frame the Go linker writes from the
// function table and `-ldflags=-w` strips, written again from the table
// (gopclntab.Table.DebugFrame); nil for an object without a Go table.
func (o *Object) goDebugFrame() *cfi.Table {
	g := o.goTable()
	if g == nil {
		return nil
	}
	data, err := g.t.DebugFrame(o.ef.Machine)
	if err != nil {
		return nil
	}
	t, err := cfi.NewDebugFrame(data, 0, o.ef.ByteOrder, o.PtrSize())
	if err != nil {
		return nil
	}
	return t
}

// GoBuildInfo returns the Go release that built the executable
// ("go1.26.8") and its GOARCH, from the build info the linker writes
// (debug/buildinfo), which stripping keeps; ok is false for an object
// without it. It is read once per object: finding it searches the data
// for its magic, which every core of a batch asks for (a third of a
// batch's goroutine reading, most of it on executables not written in
// Go).
func (o *Object) GoBuildInfo() (version, goarch string, ok bool) {
	b, _ := o.Keyed(goBuildInfoKey{}, func() any { return o.readGoBuildInfo() }).(goBuildInfo)
	return b.version, b.goarch, b.ok
}

// goBuildInfoKey keys GoBuildInfo's answer on the object.
type goBuildInfoKey struct{}

// goBuildInfo is GoBuildInfo's answer.
type goBuildInfo struct {
	version, goarch string
	ok              bool
}

// readGoBuildInfo reads GoBuildInfo's answer from the file.
func (o *Object) readGoBuildInfo() (b goBuildInfo) {
	defer func() {
		if p := recover(); p != nil {
			mapfault.Reraise(p)
			b = goBuildInfo{}
		}
	}()
	bi, err := buildinfo.Read(o.src)
	if err != nil {
		return goBuildInfo{}
	}
	for _, s := range bi.Settings {
		if s.Key == "GOARCH" {
			b.goarch = s.Value
		}
	}
	b.version, b.ok = bi.GoVersion, bi.GoVersion != ""
	return b
}

// errorf is fmt.Errorf with the package prefix.
func errorf(format string, args ...any) error {
	return fmt.Errorf("elfx: "+format, args...)
}

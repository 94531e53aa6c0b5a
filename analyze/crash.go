package analyze

import (
	"debug/elf"
	"strings"

	"github.com/coreunwind/coreunwind/analyze/crashinfo"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// crashAnalysis explains the crash of the report's crashed thread (see
// package crashinfo); nil when no thread crashed.
func crashAnalysis(s *Session, r *report.Report) *report.Crash {
	c := s.Core
	if c.Signal == nil || s.arch == nil || !crashed(c) {
		return nil
	}
	var rt *report.Thread
	for i := range r.Threads {
		if r.Threads[i].Crashed {
			rt = &r.Threads[i]
		}
	}
	th := c.Thread(c.CrashedTID)
	if rt == nil || th == nil {
		return nil
	}
	ts := &unwind.ThreadState{GRegs: th.GRegs, FPRegs: th.FPRegs, Notes: th.Notes, Order: s.target.ByteOrder(), Mem: s.target}
	f0, err := s.arch.FrameFromThread(ts)
	if err != nil {
		return nil
	}
	sig := c.Signal
	in := &crashinfo.Input{
		Arch:     s.arch,
		Mem:      s.target,
		Signal:   crashinfo.Signal{Name: sig.Name(), Code: sig.Code, CodeName: sig.CodeName(), Addr: sig.Addr, HasAddr: sig.HasAddr},
		Frame0:   f0,
		Frames:   rt.Frames,
		Mappings: r.Mappings,
		DataSymbol: func(name string) (uint64, bool) {
			return s.target.symbolAddr(name, elf.STT_OBJECT)
		},
		CodeSymbol: func(name string) (uint64, bool) {
			return s.target.symbolAddr(name, elf.STT_FUNC)
		},
		Section:    s.target.sectionAt,
		FunctionAt: s.target.functionAt,
		GOT:        s.target.pltGOT,
	}
	if !sig.Detailed {
		in.Signal.Code = 0 // pr_cursig only: the code means nothing
	}
	in.Signal.SenderPID, in.Signal.SenderUID, in.Signal.HasSender = sig.SenderPID, sig.SenderUID, sig.HasSender
	in.PID = c.PID
	if sf := s.reraisedFault(th, rt, f0, r.Mappings); sf != nil {
		killer := coreInfo(c).Signal
		killer.SenderPID, killer.SenderUID = nil, nil
		in.Reraised = &report.Reraised{Signal: *killer, Fault: *reportSignal(sf.signal), SignalFrame: sf.signalFrame, FaultFrame: sf.faultFrame}
		in.Signal = crashinfo.Signal{Name: sf.signal.Name(), Code: sf.signal.Code, CodeName: sf.signal.CodeName(), Addr: sf.signal.Addr, HasAddr: sf.signal.HasAddr}
		in.Frame0 = sf.frame
		in.Frames = rt.Frames[sf.faultFrame:]
	}
	if tpa, ok := s.arch.(unwind.ThreadPointerArch); ok {
		in.ThreadPointer = func() (uint64, bool) { return tpa.ThreadPointer(ts) }
		in.DTVAt = tpa.DTVAt()
		in.ExeTLSSymbol = s.target.exeTLSSymbol
		in.ExeRustSymbol = s.target.exeRustSymbol
	}
	rc := crashinfo.Analyze(in)
	if rc != nil && in.Reraised != nil && len(rc.Registers) == 0 {
		// The report lists registers for the first frames only
		// (CrashRegistersOnly): the fault's are the signal context's.
		var regs regSlab
		rc.Registers = regs.frameRegisters(s.arch, in.Frame0)
	}
	return rc
}

// symbolAddr is the run-time address of the first defined symbol called
// name of type typ in the modules' dynamic symbol tables, then their full
// symbol tables (a static executable's). The tables are searched in place
// (elfx.Object.DefinedSymbol): an abort in node must not read its 75,000
// dynamic symbols to find glibc's __abort_msg.
func (t *target) symbolAddr(name string, typ elf.SymType) (uint64, bool) {
	for _, tab := range []elf.SectionType{elf.SHT_DYNSYM, elf.SHT_SYMTAB} {
		for _, m := range t.modules {
			obj := m.obj()
			if obj == nil || obj.ELF() == nil {
				continue
			}
			if v, ok := definedSymbol(obj, tab, name, typ); ok {
				return v + m.bias, true
			}
		}
	}
	return 0, false
}

// definedSymbolKey is a lookup of definedSymbol, as an elfx.Object.Keyed
// key.
type definedSymbolKey struct {
	tab  elf.SectionType
	name string
	typ  elf.SymType
}

// definedSymbolValue is a definedSymbol answer, found or not.
type definedSymbolValue struct {
	value uint64
	ok    bool
}

// definedSymbol is obj.DefinedSymbol, kept with the object: a batch's
// cores of one program look the same few names up (libstdc++'s
// __cxa_get_globals for every uncaught exception), and a name that is
// in no dynamic symbol table is searched for in full symbol tables
// entry by entry, once per module per core (libstdc++'s debug build:
// 7% of a warm batch a third of whose cores were uncaught exceptions).
// The names are crashinfo's own, a few, so the memo stays small.
func definedSymbol(obj *elfx.Object, tab elf.SectionType, name string, typ elf.SymType) (uint64, bool) {
	d := obj.Keyed(definedSymbolKey{tab, name, typ}, func() any {
		v, ok := obj.DefinedSymbol(tab, name, typ)
		return definedSymbolValue{v, ok}
	}).(definedSymbolValue)
	return d.value, d.ok
}

// functionAt names the function whose symbol starts exactly at addr.
func (t *target) functionAt(addr uint64) (string, bool) {
	m := t.module(addr)
	if m == nil || m.core == nil {
		return "", false
	}
	obj := m.obj()
	if obj == nil {
		return "", false
	}
	sym, ok := obj.Symbol(addr - m.bias)
	if !ok || sym.Addr != addr-m.bias {
		return "", false
	}
	return sym.Name, true
}

// exeTLSSymbol is the value of the main executable's thread-local symbol
// name: its offset in the executable's TLS segment.
func (t *target) exeTLSSymbol(name string) (uint64, bool) {
	obj, _ := t.exeObject()
	if obj == nil {
		return 0, false
	}
	offsets, _ := obj.Keyed(tlsSymbolsKey{}, func() any { return readTLSSymbols(obj) }).(map[string]uint64)
	off, ok := offsets[name]
	return off, ok
}

// tlsSymbolsKey keys an executable's thread-local symbols on its object.
type tlsSymbolsKey struct{}

// readTLSSymbols reads obj's defined thread-local symbols: each name's
// first offset in the TLS segment. Once per executable: the cores of a
// batch share it. Read in place (elfx.DataSymbols), not through
// debug/elf, which makes a Symbol and a string of every entry.
func readTLSSymbols(obj *elfx.Object) map[string]uint64 {
	offsets := make(map[string]uint64)
	obj.DataSymbols(func(sym elfx.DataSymbol) {
		if !sym.TLS {
			return
		}
		if _, seen := offsets[sym.Name]; !seen {
			offsets[strings.Clone(sym.Name)] = sym.Value
		}
	})
	return offsets
}

// exeObject is the main executable's object and its load bias (nil when
// its file is not at hand).
func (t *target) exeObject() (*elfx.Object, uint64) {
	for _, m := range t.modules {
		if m.core == nil || !m.core.Main {
			continue
		}
		if obj := m.obj(); obj != nil && obj.ELF() != nil {
			return obj, m.bias
		}
	}
	return nil, 0
}

// pltGOT is the run-time address of the GOT (DT_PLTGOT: i386's
// _GLOBAL_OFFSET_TABLE_) of the module holding addr.
func (t *target) pltGOT(addr uint64) (uint64, bool) {
	m := t.module(addr)
	if m == nil {
		return 0, false
	}
	obj := m.obj()
	if obj == nil || obj.ELF() == nil {
		return 0, false
	}
	v, err := obj.ELF().DynValue(elf.DT_PLTGOT)
	if err != nil || len(v) == 0 {
		return 0, false
	}
	return v[0] + m.bias, true
}

// sectionAt names the allocated section holding file offset off of the
// module recorded as path, "" if none.
func (t *target) sectionAt(path string, off uint64) string {
	for _, m := range t.modules {
		if m.core.Path != path {
			continue
		}
		obj := m.obj()
		if obj == nil || obj.ELF() == nil {
			continue
		}
		for _, sec := range obj.ELF().Sections {
			if sec.Type != elf.SHT_NOBITS && sec.Flags&elf.SHF_ALLOC != 0 && off >= sec.Offset && off-sec.Offset < sec.Size {
				return sec.Name
			}
		}
	}
	return ""
}

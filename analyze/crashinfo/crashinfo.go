package crashinfo

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"

	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// Memory is the crashed process's memory.
type Memory interface {
	ByteOrder() binary.ByteOrder
	PtrSize() int
	ReadMem(addr uint64, p []byte) error
}

// Signal is the signal that killed the process (corefile.Signal's facts).
type Signal struct {
	Name     string // "SIGSEGV"
	Code     int    // si_code
	CodeName string // "SEGV_MAPERR", "" if none
	Addr     uint64 // si_addr
	HasAddr  bool
	// SenderPID and SenderUID: who sent it (SI_USER, SI_TKILL,
	// SI_QUEUE), when HasSender.
	SenderPID, SenderUID int
	HasSender            bool
}

// Input is what the analysis reads.
type Input struct {
	Arch   unwind.Arch
	Mem    Memory
	Signal Signal
	// Frame0 is the crashed thread's registers as the core saved them.
	Frame0 *unwind.Frame
	// Frames are the crashed thread's frames, symbolized.
	Frames []report.Frame
	// Mappings is the memory map, sorted by Start.
	Mappings []report.Mapping
	// DataSymbol returns the run-time address of a data symbol (glibc's
	// __abort_msg) in any module; nil when names are not looked up.
	DataSymbol func(name string) (uint64, bool)
	// ThreadPointer is the crashed thread's TLS pointer (x86-64 fs_base),
	// ok false when unknown; DTVAt is where its DTV pointer is, relative
	// to it (unwind.ThreadPointerArch).
	ThreadPointer func() (uint64, bool)
	DTVAt         int64
	// ExeTLSSymbol returns a thread-local symbol of the main executable
	// (TLS module 1): its offset in the executable's TLS block. A static
	// executable's libstdc++ has its exception globals there.
	ExeTLSSymbol func(name string) (uint64, bool)
	// ExeRustSymbol returns a Rust static of the main executable by its
	// demangled path: a thread-local's offset in the executable's TLS
	// block (tls), else a data symbol's run-time address.
	ExeRustSymbol func(path string) (value uint64, tls, ok bool)
	// Section names the section at a file offset of a mapped file, ""
	// when unknown.
	Section func(path string, off uint64) string
	// CodeSymbol returns the run-time address of a function, for decoding
	// its few instructions (libstdc++'s __cxa_get_globals).
	CodeSymbol func(name string) (uint64, bool)
	// FunctionAt names the function that starts at addr (a vtable's
	// entry), demangled; nil when names are not looked up.
	FunctionAt func(addr uint64) (string, bool)
	// PID is the crashed process's: a signal it sent itself was raised,
	// not sent.
	PID int
	// Reraised is set when Signal, Frame0 and Frames are a fault a
	// signal handler caught (the siginfo and context the kernel saved in
	// its signal frame, the frames from the one the fault interrupted):
	// what killed the process, and where those frames are in the report.
	Reraised *report.Reraised
	// GOT returns the run-time address of the GOT (DT_PLTGOT) of the
	// module holding addr, for code that addresses data from it
	// (unwind.GOTRegArch); nil when unknown.
	GOT func(addr uint64) (uint64, bool)
}

// analysis is one Analyze call's state.
type analysis struct {
	in    *Input
	c     *report.Crash
	pc    uint64
	hasPC bool
	insn  *unwind.Insn
	// undecodable: the bytes at the pc are not an instruction (the
	// first detail says why); not set when a partial decoder only does
	// not cover them.
	undecodable bool
}

// Analyze explains the crash. It returns nil when there is no signal.
func Analyze(in *Input) *report.Crash {
	if in.Signal.Name == "" || in.Frame0 == nil || in.Arch == nil {
		return nil
	}
	a := &analysis{in: in, c: &report.Crash{}}
	if len(in.Frames) > 0 {
		a.c.Registers = in.Frames[len(inlinedPrefix(in.Frames))].Registers
	}
	a.pc, a.hasPC = in.Frame0.Get(in.Arch.PCReg())
	if in.Reraised == nil && in.Signal.HasSender && a.sent() {
		return a.c
	}
	switch in.Signal.Name {
	case "SIGILL", "SIGFPE", "SIGTRAP":
		if p, ok := in.Arch.(unwind.TrapPCAfter); ok && p.TrapPCAfter() {
			a.c.Details = append(a.c.Details, fmt.Sprintf("on %s the pc of a %s is past the faulting instruction, whose length the core does not record: it is not decoded", in.Arch.Name(), in.Signal.Name))
			break
		}
		a.decode()
	case "SIGSEGV", "SIGBUS":
		// The instruction is the culprit; for other signals (abort's
		// SIGABRT) it is wherever the thread happened to be.
		a.decode()
	}
	switch in.Signal.Name {
	case "SIGSEGV", "SIGBUS":
		a.memoryFault()
	case "SIGILL", "SIGTRAP":
		a.illegal()
	case "SIGFPE":
		a.arithmetic()
	case "SIGABRT", "SIGIOT":
		a.abort()
	}
	if a.c.Summary == "" {
		a.c.Kind = "signal"
		a.c.Summary = a.signalFacts()
	}
	if in.Reraised != nil {
		a.reraised()
	}
	return a.c
}

// inlinedPrefix is the inlined frames before the first real frame (they
// share its registers).
func inlinedPrefix(fs []report.Frame) []report.Frame {
	i := 0
	for i < len(fs)-1 && fs[i].Inlined {
		i++
	}
	return fs[:i]
}

// signalFacts is the summary when nothing more is proven: the signal, its
// code and address, and where.
func (a *analysis) signalFacts() string {
	s := a.in.Signal
	out := s.Name
	if s.CodeName != "" {
		out += " (" + s.CodeName + ")"
	}
	if s.HasAddr {
		out += fmt.Sprintf(" at address %#x", s.Addr)
	}
	if a.insn != nil {
		out += fmt.Sprintf(" in %s", a.insn.Text)
	}
	return out
}

// decode reads and decodes the instruction at pc, when the arch can.
func (a *analysis) decode() {
	d, ok := a.in.Arch.(unwind.InsnDecoder)
	if !ok || !a.hasPC {
		return
	}
	start := a.pc
	if c, ok := d.(unwind.InsnCodeAddr); ok {
		start = c.InsnCodeAddr(a.pc)
	}
	code := a.readCode(start, d.MaxInsnLen())
	if len(code) == 0 {
		return
	}
	in, err := d.DecodeInsn(code, a.pc, a.in.Frame0.Get)
	if err != nil {
		a.c.Details = append(a.c.Details, fmt.Sprintf("the bytes at pc %#x (%s) do not decode: %v", a.pc, hex.EncodeToString(code), err))
		a.undecodable = !errors.Is(err, unwind.ErrInsnNotCovered)
		return
	}
	a.insn = &in
	ri := &report.Instruction{Address: report.Hex(a.pc), Text: in.Text, Bytes: hex.EncodeToString(code[:in.Len])}
	if in.Mem != unwind.MemNone && in.HasMemAddr {
		ri.MemoryAddress = report.Ptr(report.Hex(in.MemAddr))
	}
	ri.Registers = []report.Register{}
	for _, r := range in.Regs {
		if v, ok := a.in.Frame0.Get(r); ok {
			ri.Registers = append(ri.Registers, report.Register{Name: a.in.Arch.RegName(r), Value: report.Hex(v), How: "context"})
		}
	}
	a.c.Instruction = ri
}

// readCode reads up to n bytes at addr, fewer at the end of what the core
// and the files hold.
func (a *analysis) readCode(addr uint64, n int) []byte {
	for ; n > 0; n-- {
		b := make([]byte, n)
		if a.in.Mem.ReadMem(addr, b) == nil {
			return b
		}
	}
	return nil
}

// reg is a register of frame 0.
func (a *analysis) reg(r int) (uint64, bool) { return a.in.Frame0.Get(r) }

// regName names register r.
func (a *analysis) regName(r int) string { return a.in.Arch.RegName(r) }

// mappingAt returns the mapping holding addr, nil if none.
func (a *analysis) mappingAt(addr uint64) *report.Mapping {
	ms := a.in.Mappings
	i := sort.Search(len(ms), func(i int) bool { return uint64(ms[i].Start) > addr }) - 1
	if i >= 0 && addr < uint64(ms[i].End) && ms[i].Perms != "" {
		return &ms[i]
	}
	return nil
}

// describe names a mapping for people: "r-- mapping of /bin/prog at file
// offset 0x2000" or "rw- anonymous mapping 0x...-0x...".
func describe(m *report.Mapping, addr uint64) string {
	if m.Path != nil {
		return fmt.Sprintf("%s mapping of %s (file offset %#x)", m.Perms, *m.Path, uint64(m.Offset)+addr-uint64(m.Start))
	}
	return fmt.Sprintf("%s anonymous mapping %#x-%#x", m.Perms, uint64(m.Start), uint64(m.End))
}

// complete reports whether the memory map describes the whole address
// space: the kernel writes a PT_LOAD for every mapping, so with segments
// an address outside them all is unmapped.
func (a *analysis) complete() bool {
	for i := range a.in.Mappings {
		if a.in.Mappings[i].Perms != "" {
			return true
		}
	}
	return false
}

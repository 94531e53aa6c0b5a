package crashinfo

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/unwind"
)

// terminate explains std::terminate: when it came from __cxa_throw, no
// handler caught the exception; its type is read from libstdc++'s
// per-thread exception globals, where __cxa_throw left it (it calls
// __cxa_begin_catch before std::terminate).
func (a *analysis) terminate(t int) {
	a.c.Kind = "terminate"
	a.c.Summary = "std::terminate() called" + a.callerOf(t, " by ")
	if t+1 < len(a.in.Frames) && a.frameNamed("__cxa_throw") == t+1 {
		a.c.Kind = "uncaught_exception"
		a.c.Summary = "uncaught C++ exception, thrown" + a.callerOf(t+1, " by ")
	}
	libcxxabi := a.isLibcxxabi()
	var hdr, ti uint64
	var err error
	if libcxxabi {
		hdr, ti, err = a.libcxxabiException(t + 1)
	} else {
		hdr, ti, err = a.currentException()
	}
	var typ string
	if err == nil && hdr != 0 {
		typ, err = ReadTypeInfoName(a.in.Mem, ti)
	}
	if err != nil {
		a.c.Details = append(a.c.Details, fmt.Sprintf("the exception's type could not be read: %v", err))
		return
	}
	if typ == "" {
		return
	}
	a.c.ExceptionType = &typ
	if libcxxabi {
		a.libcxxabiMessage(hdr+libcxxabiLayout(uint64(a.in.Mem.PtrSize())).thrownObject(), ti, typ, t+1)
	} else {
		a.exceptionMessage(hdr+cxaUnwindHeaderOff(uint64(a.in.Mem.PtrSize()))+unwindExceptionSize, ti)
		if a.c.ExceptionMessage != nil {
			// libstdc++'s verbose terminate handler's two lines.
			line := "terminate called after throwing an instance of '" + typ + "'\n  what():  " + *a.c.ExceptionMessage
			a.c.TerminateMessage = &line
		}
	}
	if a.c.Kind == "uncaught_exception" {
		a.c.Summary = "uncaught C++ exception of type " + typ + a.callerOf(t+1, ", thrown by ")
	} else {
		a.c.Summary += " while handling an exception of type " + typ
	}
}

// Itanium C++ ABI layout (libstdc++'s unwind-cxx.h): the
// __cxa_exception header starts with the type_info pointer; its
// _Unwind_Exception, whose first member is the 8-byte exception class,
// follows nine pointer-sized members and two ints, at the largest
// alignment (__attribute__((aligned)): 16 on x86 and the LP64 arches):
// 80 on LP64, 48 on i386.
const (
	gnuCxxClass = 0x474e5543432b2b00 // "GNUCC++\0": a primary C++ exception
	maxTypeName = 1024
)

// cxaUnwindHeaderOff is where __cxa_exception's _Unwind_Exception is,
// for a pointer size of ps bytes.
func cxaUnwindHeaderOff(ps uint64) uint64 {
	return (9*ps + 8 + 15) &^ 15
}

// currentException returns the __cxa_exception header of the thread's
// most recently caught exception and its std::type_info; hdr is 0 when
// there is none.
func (a *analysis) currentException() (hdr, ti uint64, err error) {
	eh, err := a.ehGlobals()
	if err != nil {
		return 0, 0, err
	}
	m := a.in.Mem
	hdr, err = readPtr(m, eh)
	if err != nil {
		return 0, 0, fmt.Errorf("__cxa_eh_globals at %#x: %w", eh, err)
	}
	if hdr == 0 {
		return 0, 0, nil
	}
	var cb [8]byte
	if err := m.ReadMem(hdr+cxaUnwindHeaderOff(uint64(m.PtrSize())), cb[:]); err != nil {
		return 0, 0, fmt.Errorf("exception header at %#x: %w", hdr, err)
	}
	class := m.ByteOrder().Uint64(cb[:])
	if class != gnuCxxClass {
		return 0, 0, fmt.Errorf("exception at %#x is not a primary C++ exception (class %#x)", hdr, class)
	}
	ti, err = readPtr(m, hdr)
	if err != nil {
		return 0, 0, fmt.Errorf("exception header at %#x: %w", hdr, err)
	}
	return hdr, ti, nil
}

// ReadTypeInfoName reads a std::type_info's name (its second word: the
// mangled type, '*'-prefixed for types local to one object) and
// demangles it.
func ReadTypeInfoName(m Memory, ti uint64) (string, error) {
	name, err := mangledTypeName(m, ti)
	if err != nil {
		return "", err
	}
	if d := elfx.Demangle("_ZTS" + name); strings.HasPrefix(d, "typeinfo name for ") {
		return strings.TrimPrefix(d, "typeinfo name for "), nil
	}
	return name, nil
}

// mangledTypeName reads a std::type_info's mangled name, without the
// '*' that marks a type local to one object.
func mangledTypeName(m Memory, ti uint64) (string, error) {
	namePtr, err := readPtr(m, ti+uint64(m.PtrSize()))
	if err != nil {
		return "", fmt.Errorf("type_info at %#x: %w", ti, err)
	}
	b := readUpTo(m, namePtr, maxTypeName)
	i := bytes.IndexByte(b, 0)
	if i <= 0 {
		return "", fmt.Errorf("type name at %#x: not a string", namePtr)
	}
	name := strings.TrimPrefix(string(b[:i]), "*")
	if name == "" {
		return "", fmt.Errorf("type name at %#x: empty", namePtr)
	}
	return name, nil
}

// ehGlobalsNames are the names libstdc++ has given its thread-local
// __cxa_eh_globals in a static link (eh_globals.cc): gcc 12's
// function-local (anonymous namespace)::get_global()::global, older
// ones' file-scope eh_globals.
var ehGlobalsNames = []string{"_ZZN12_GLOBAL__N_110get_globalEvE6global", "_ZL10eh_globals", "_ZN12_GLOBAL__N_110eh_globalsE"}

// ehGlobals finds libstdc++'s __cxa_eh_globals of the crashed thread:
// in the executable's own TLS block when libstdc++ is linked into it (a
// static executable: the symbol's offset in module 1), else in
// libstdc++.so's, whose tls_index ({module, offset}) __cxa_get_globals
// loads before calling __tls_get_addr. A module's TLS block is the
// thread's DTV entry (glibc: 16-byte entries, or 8 on 32-bit, whose
// first word is the block), the DTV found from the thread pointer.
func (a *analysis) ehGlobals() (uint64, error) {
	if a.in.ThreadPointer == nil {
		return 0, errors.New("no thread pointer")
	}
	if a.in.ExeTLSSymbol != nil {
		for _, name := range ehGlobalsNames {
			if off, ok := a.in.ExeTLSSymbol(name); ok {
				block, err := a.tlsBlock(1)
				if err != nil {
					return 0, err
				}
				return block + off, nil
			}
		}
	}
	mod, off, err := a.tlsIndex()
	if err != nil {
		return 0, err
	}
	block, err := a.tlsBlock(mod)
	if err != nil {
		return 0, err
	}
	return block + off, nil
}

// tlsIndex reads libstdc++.so's tls_index for its exception globals
// from the first instructions of __cxa_get_globals: the pc-relative
// address they compute without accessing memory (x86-64's lea), or on
// i386 the GOT-relative one.
func (a *analysis) tlsIndex() (mod, off uint64, err error) {
	if a.in.CodeSymbol == nil {
		return 0, 0, errors.New("no symbols")
	}
	fn, ok := a.in.CodeSymbol("__cxa_get_globals")
	if !ok {
		return 0, 0, errors.New("no __cxa_get_globals (not libstdc++)")
	}
	d, ok := a.in.Arch.(unwind.InsnDecoder)
	if !ok {
		return 0, 0, fmt.Errorf("no instruction decoder for %s", a.in.Arch.Name())
	}
	// No register is known, but on i386 the GOT's, which the code
	// loads with a call to a pc thunk: lea tls_index@tlsgd(,%ebx,1).
	gotReg, got, hasGOT := -1, uint64(0), false
	if g, ok := a.in.Arch.(unwind.GOTRegArch); ok && a.in.GOT != nil {
		gotReg = g.GOTReg()
		got, hasGOT = a.in.GOT(fn)
	}
	reg := func(r int) (uint64, bool) { return got, hasGOT && r == gotReg }
	tlsIndex, found := uint64(0), false
	pc := fn
	for range 8 {
		code := a.readCode(pc, d.MaxInsnLen())
		in, err := d.DecodeInsn(code, pc, reg)
		if err != nil || in.Len == 0 {
			break
		}
		fromGOT := hasGOT && (in.MemBase == gotReg || in.MemIndex == gotReg)
		if in.Mem == unwind.MemNone && in.HasMemAddr && (in.MemBase == a.in.Arch.PCReg() || fromGOT) {
			tlsIndex, found = in.MemAddr, true // lea tls_index(%rip), %rdi
			break
		}
		if in.Class == unwind.InsnReturn || in.Class == unwind.InsnCall && !hasGOT {
			break // i386's first call is to the pc thunk
		}
		pc += uint64(in.Len)
	}
	if !found {
		return 0, 0, fmt.Errorf("__cxa_get_globals at %#x: no tls_index load in its first instructions", fn)
	}
	ps := uint64(a.in.Mem.PtrSize())
	if mod, err = readPtr(a.in.Mem, tlsIndex); err == nil {
		off, err = readPtr(a.in.Mem, tlsIndex+ps)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("tls_index at %#x: %w", tlsIndex, err)
	}
	if mod == 0 || mod > 1<<16 {
		return 0, 0, fmt.Errorf("tls_index at %#x: module %d", tlsIndex, mod)
	}
	return mod, off, nil
}

// tlsBlock returns the crashed thread's TLS block of module mod, from
// its DTV.
func (a *analysis) tlsBlock(mod uint64) (uint64, error) {
	tp, ok := a.in.ThreadPointer()
	if !ok {
		return 0, errors.New("no thread pointer in the core")
	}
	at := tp + uint64(a.in.DTVAt)
	dtv, err := readPtr(a.in.Mem, at)
	if err != nil {
		return 0, fmt.Errorf("DTV pointer at %#x (thread pointer %#x): %w", at, tp, err)
	}
	entry := dtv + 2*uint64(a.in.Mem.PtrSize())*mod
	block, err := readPtr(a.in.Mem, entry)
	if err != nil {
		return 0, fmt.Errorf("DTV at %#x: %w", dtv, err)
	}
	if block == 0 || block == ^uint64(0) {
		return 0, fmt.Errorf("DTV entry %d is not allocated", mod)
	}
	return block, nil
}
